// The tail every stack-only bench server shares (floor.ts, minimum.ts): a JSON error answer, the
// server created as the reference server creates its own, `READY <url>` once it listens, a
// graceful stop on SIGTERM and an exit when the bench that started it is gone.
import type { AddressInfo } from 'node:net';
import type express from 'express';
import { createExpressServer } from '../../../server/http/express-server.ts';
import { watchLauncher } from '../../../server/ops/launcher.ts';

export function listenForBench(app: express.Express, onStop: () => Promise<void> = async () => {}): void {
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
  const server = createExpressServer(app);
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`READY http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => void onStop().then(() => process.exit(0))));
  // The bench that started this process was killed (SIGKILL cannot be caught there): stop too.
  watchLauncher(() => process.exit(0), 500);
}
