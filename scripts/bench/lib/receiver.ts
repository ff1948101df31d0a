// A local webhook receiver: verifies each delivery's signature, counts deliveries per event id and
// can be switched to failing (answers 503) or to down (sockets destroyed) for the drills.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEADER_EVENT_ID, HEADER_WEBHOOK_SIGNATURE, verifyWebhookSignature } from '../../../client/protocol/index.ts';

export interface Delivery {
  eventId: string;
  type: string;
  attempt: number;
  at: number;
  body: string;
}

export interface Receiver {
  url: string;
  /** Every attempt seen, whatever was answered. */
  attempts: Array<{ eventId: string; attempt: number; at: number; mode: 'up' | 'failing' | 'down' }>;
  secret: string;
  deliveries: Delivery[];
  /** Distinct event ids received with a valid signature. */
  received: Set<string>;
  badSignatures: number;
  /** 'up' answers 200; 'failing' answers 503; 'down' drops the connection. */
  mode: 'up' | 'failing' | 'down';
  /** Resolves once `count` distinct events have arrived (or rejects after timeoutMs). */
  waitFor(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(secret = 'whsec_bench_0123456789abcdef'): Promise<Receiver> {
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const self: Receiver = {
    url: '',
    attempts: [],
    secret,
    deliveries: [],
    received: new Set(),
    badSignatures: 0,
    mode: 'up',
    waitFor(count, timeoutMs) {
      if (self.received.size >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${self.received.size} of ${count} events arrived within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    self.attempts.push({
      eventId: String(req.headers[HEADER_EVENT_ID.toLowerCase()] ?? ''),
      attempt: Number(req.headers['x-service-delivery-attempt'] ?? 0),
      at: Date.now(),
      mode: self.mode,
    });
    if (self.mode === 'down') {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (self.mode === 'failing') {
        res.writeHead(503).end();
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const signature = req.headers[HEADER_WEBHOOK_SIGNATURE.toLowerCase()];
      if (typeof signature !== 'string' || !verifyWebhookSignature(body, signature, secret)) {
        self.badSignatures++;
        res.writeHead(401).end();
        return;
      }
      const eventId = String(req.headers[HEADER_EVENT_ID.toLowerCase()] ?? '');
      self.deliveries.push({
        eventId,
        type: String(req.headers['x-service-event-type'] ?? ''),
        attempt: Number(req.headers['x-service-delivery-attempt'] ?? 0),
        at: Date.now(),
        body,
      });
      self.received.add(eventId);
      res.writeHead(200).end();
      for (const w of [...waiters]) {
        if (self.received.size >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return self;
}
