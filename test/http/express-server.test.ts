// The HTTP server of an Express app (server/http/express-server.ts): requests and responses are
// born with the app's prototypes, so Express never re-parents them, and Express works as usual.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
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
