// The bare-metal limit: node:http answering one fixed JSON body, nothing else. `READY <url>` on
// stdout once it listens. The body is given as BARE_BODY (the same JSON the real server answers).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { watchLauncher } from '../../server/ops/launcher.ts';

const body = Buffer.from(process.env.BARE_BODY ?? '{}', 'utf8');
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
// The bench that started this process was killed (SIGKILL cannot be caught there): stop too.
watchLauncher(() => process.exit(0), 500);
