// A webhook receiver on 127.0.0.1 that records every delivery (headers and raw body) and
// answers with the status the test chooses.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  method: string;
  path: string;
  /** The status the receiver answered. */
  answered: number;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Decides the status of each delivery (default 200); `n` counts deliveries from 0. */
  respond(decide: (delivery: Omit<Delivery, 'answered'>, n: number) => number): void;
  /** Resolves once `predicate` holds over the deliveries (checked on each arrival). */
  waitFor(predicate: (deliveries: Delivery[]) => boolean, timeoutMs?: number, what?: string): Promise<Delivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hooks/domain-sales'): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  let decide: (delivery: Omit<Delivery, 'answered'>, n: number) => number = () => 200;
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      const partial = { headers: req.headers, raw, body, method: req.method ?? '', path: req.url ?? '' };
      const answered = decide(partial, deliveries.length);
      deliveries.push({ ...partial, answered });
      res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered < 300 ? 'ok' : 'not now');
      for (const w of [...waiters]) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    deliveries,
    respond(fn) {
      decide = fn;
    },
    waitFor(predicate, timeoutMs = 5000, what = 'deliveries') {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(deliveries)) {
            cleanup();
            resolve(deliveries);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `timed out waiting for ${what}; got ${deliveries.length}: ${deliveries.map((d) => `${d.headers['x-service-event-type']}#${d.headers['x-service-delivery-attempt']}`).join(', ')}`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
