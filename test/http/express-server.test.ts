// The HTTP server of an Express app (server/http/express-server.ts): requests and responses are
// born with the app's prototypes, so Express never re-parents them, and Express works as usual.
import { connect, type AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bornWith, createExpressServer } from '../../server/http/express-server.ts';

describe('createExpressServer', () => {
  it('hands Express requests and responses that already have its prototypes, and Express answers as usual', async () => {
    const app = express();
    app.get(
      '/echo',
      (req, res) => void res.status(201).json({ q: req.query.q, header: req.get('x-probe'), app: req.app === app }),
    );
    const server = createExpressServer(app);
    // Heard before Express handles the request.
    const seen: boolean[] = [];
    server.prependListener('request', (req, res) =>
      seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/echo?q=a%20b`, { headers: { 'x-probe': 'yes' } });
      expect(answer.status).toBe(201);
      expect(await answer.json()).toEqual({ q: 'a b', header: 'yes', app: true });
      expect(seen).toEqual([true, true]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** Writes `bytes` and closes the sending half at once; resolves with all the server sent, when it ends. */
function halfClosing(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.end(bytes);
  });
}

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('a client that closes its sending half after its request', () => {
  // The handler answers only once the server has read the client's FIN, as an answer that waits
  // on the store past a poll of the sockets would.
  function afterTheFin() {
    const app = express();
    app.get('/late/:n', (req, res) => {
      const answer = () => void res.status(200).json({ n: req.params.n });
      if (req.socket.readableEnded) answer();
      else req.socket.once('end', answer);
    });
    return createExpressServer(app);
  }

  // One server for the three: each test opens a connection of its own.
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = afterTheFin();
    port = await listening(server);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('still gets its answer, then the server ends the connection (Connection: close)', async () => {
    const text = await halfClosing(port, 'GET /late/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text.endsWith('{"n":"1"}')).toBe(true);
  });

  it('gets every pipelined answer, in order, on a keep-alive connection', async () => {
    const text = await halfClosing(
      port,
      'GET /late/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /late/2 HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    const statuses = text.match(/HTTP\/1\.1 200 /g) ?? [];
    expect(statuses).toHaveLength(2);
    expect(text.indexOf('{"n":"1"}')).toBeGreaterThan(0);
    expect(text.indexOf('{"n":"2"}')).toBeGreaterThan(text.indexOf('{"n":"1"}'));
  });

  it('is ended at once when nothing is pending', async () => {
    expect(await halfClosing(port, '')).toBe('');
  });
});

describe('bornWith', () => {
  it('runs a constructor function on an object with the given prototype', () => {
    function Point(this: { x: number }, x: number) {
      this.x = x;
    }
    const prototype = {
      twice(this: { x: number }) {
        return 2 * this.x;
      },
    };
    const Born = bornWith(Point as unknown as new (x: number) => { x: number }, prototype);
    if (!Born) throw new Error('a constructor function is usable');
    const p = new Born(21) as { x: number; twice(): number };
    expect(Object.getPrototypeOf(p)).toBe(prototype);
    expect(p.twice()).toBe(42);
  });

  it('declines a class, which cannot run on an object it did not create', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    expect(bornWith(Point, {})).toBeUndefined();
  });
});
