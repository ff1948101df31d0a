// The ceiling of the server's own stack: Express 5, routing by the contract index and
// express-openapi-validator over the matched operation (requests validated, as in the production
// profile), answering GET /availability with a fixed JSON body: no signature, no store, no rate
// limit. What the reference server adds to
// this is the cost of the partner protocol itself. `READY <url>` on stdout once it listens.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createExpressServer } from '../../server/http/express-server.ts';
import { Contract } from '../../server/contract/index.ts';
import { matchOperation } from '../../server/http/match-operation.ts';
import { openApiValidator } from '../../server/http/validator.ts';
import { watchLauncher } from '../../server/ops/launcher.ts';

const body: unknown = JSON.parse(process.env.BARE_BODY ?? '{}');
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
const contract = Contract.load().partner;
app.use(matchOperation(contract), openApiValidator(contract, { validateResponses: false }));
app.get('/api/partner/v1/availability', (_req, res) => void res.json(body));
app.use(
  (
    err: { status?: number; message?: string },
    _req: express.Request,
    res: express.Response,
    _next: express.NextFunction,
  ) => {
    res.status(err.status ?? 500).json({ code: 'error', message: err.message ?? 'error' });
  },
);
// Created as the reference server creates its own (server/http/express-server.ts).
const server = createExpressServer(app);
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
// The bench that started this process was killed (SIGKILL cannot be caught there): stop too.
watchLauncher(() => process.exit(0), 500);
