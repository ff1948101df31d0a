// Slow clients and oversized bodies: sockets that send their headers a byte at a time, uploads
// that trickle their body, and bodies over the 1 MiB limit (declared or chunked) must be cut off
// (headers timeout 10 s, request timeout 30 s, 413) while ordinary signed traffic goes on
// answering 200 at a comparable rate.
import { connect, type Socket } from 'node:net';
import { mint, signFor } from '../bench/lib/partner.ts';
import { runLoad } from '../bench/lib/load.ts';
import { spawnServer } from '../bench/lib/processes.ts';
import { timed, waitUntil, type DrillOptions, type DrillResult } from './lib.ts';

interface Held {
  socket: Socket;
  openedAt: number;
  closedAt?: number;
  /** The first bytes the server sent back, if any (e.g. a 408). */
  answer: string;
}

function hold(url: URL, head: string, drip: string, everyMs: number): Held {
  const socket = connect(Number(url.port), url.hostname);
  const held: Held = { socket, openedAt: Date.now(), answer: '' };
  socket.on('data', (d: Buffer) => {
    if (held.answer.length < 200) held.answer += d.toString('latin1');
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    held.closedAt = Date.now();
    clearInterval(timer);
  });
  socket.write(head);
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(drip);
  }, everyMs);
  return held;
}

/** Sends `body` with or without a content-length; resolves with the status line the server gave. */
function upload(
  url: URL,
  target: string,
  headers: Record<string, string>,
  body: Buffer,
  chunked: boolean,
): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(answer.split('\r\n')[0] ?? ''));
    const lines = [
      `POST ${target} HTTP/1.1`,
      `Host: ${url.host}`,
      'Connection: close',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    lines.push(chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`);
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (chunked) {
      for (let i = 0; i < body.length; i += 64 * 1024)
        socket.write(
          `${Math.min(64 * 1024, body.length - i).toString(16)}\r\n${body.subarray(i, i + 64 * 1024).toString('latin1')}\r\n`,
        );
      socket.write('0\r\n\r\n');
    } else socket.write(body);
    setTimeout(() => socket.destroy(), 20_000);
  });
}

export async function slowClientsDrill(o: DrillOptions): Promise<DrillResult> {
  return timed('slow', async (checks, figures) => {
    const server = await spawnServer({ validateResponses: false });
    const held: Held[] = [];
    try {
      const credential = await mint(server.url);
      const url = new URL(server.url);
      const target = '/api/partner/v1/availability?domain=slow.com';
      const build = () => ({ headers: signFor(credential, 'GET', target) });
      const baseline = await runLoad({ url: server.url, connections: 4, duration: 5, path: target, build });

      // 50 slowloris sockets (headers a byte every 2 s) and 20 trickled uploads (a body byte a second).
      const slowHeaders = Array.from({ length: 50 }, () =>
        hold(url, `GET ${target} HTTP/1.1\r\nHost: ${url.host}\r\nX-Slow: `, 'a', 2000),
      );
      const orderBody = JSON.stringify({
        domain: 'slow.com',
        expected_price: 1,
        currency: 'USD',
        buyer: { email: 'slow@example.org' },
      });
      const slowBodies = Array.from({ length: 20 }, () => {
        const headers = {
          ...signFor(credential, 'POST', '/api/partner/v1/orders', orderBody, `slow-${Math.random()}`),
          'Content-Type': 'application/json',
        };
        const head = `POST /api/partner/v1/orders HTTP/1.1\r\nHost: ${url.host}\r\n${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\r\n')}\r\nContent-Length: ${orderBody.length}\r\n\r\n`;
        return hold(url, head, ' ', 1000);
      });
      held.push(...slowHeaders, ...slowBodies);

      // Oversized bodies, declared and chunked, signed like real requests.
      const big = Buffer.alloc(2 * 1024 * 1024, 0x61);
      const bigHeaders = () => ({
        ...signFor(credential, 'POST', '/api/partner/v1/orders', big, `big-${Math.random()}`),
        'Content-Type': 'application/json',
      });
      const oversized = Promise.all([
        ...Array.from({ length: 5 }, () => upload(url, '/api/partner/v1/orders', bigHeaders(), big, false)),
        ...Array.from({ length: 5 }, () => upload(url, '/api/partner/v1/orders', bigHeaders(), big, true)),
      ]);

      // Ordinary traffic for as long as the slow sockets are being cut off.
      const during = runLoad({ url: server.url, connections: 4, duration: o.quick ? 45 : 65, path: target, build });
      const oversizedAnswers = await oversized;
      const headersCut = await waitUntil(() => slowHeaders.every((h) => h.closedAt !== undefined), 60_000, 250);
      const bodiesCut = await waitUntil(() => slowBodies.every((h) => h.closedAt !== undefined), 75_000, 250);
      const load = await during;
      const lifetimes = (hs: Held[]) => hs.map((h) => ((h.closedAt ?? Date.now()) - h.openedAt) / 1000);
      const max = (xs: number[]) => Math.max(...xs);
      const min = (xs: number[]) => Math.min(...xs);
      const statusCounts: Record<string, number> = {};
      for (const a of oversizedAnswers)
        statusCounts[a || '(closed without an answer)'] = (statusCounts[a || '(closed without an answer)'] ?? 0) + 1;
      Object.assign(figures, {
        slowHeaderSockets: slowHeaders.length,
        slowHeadersCutAfterSeconds: { min: min(lifetimes(slowHeaders)), max: max(lifetimes(slowHeaders)) },
        slowHeaderAnswers: [...new Set(slowHeaders.map((h) => h.answer.split('\r\n')[0] || '(closed)'))],
        slowBodySockets: slowBodies.length,
        slowBodiesCutAfterSeconds: { min: min(lifetimes(slowBodies)), max: max(lifetimes(slowBodies)) },
        slowBodyAnswers: [...new Set(slowBodies.map((h) => h.answer.split('\r\n')[0] || '(closed)'))],
        oversizedAnswers: statusCounts,
        baseline: { rps: Math.round(baseline.rps), p99: baseline.p99, statuses: baseline.statuses },
        duringAttack: {
          rps: Math.round(load.rps),
          p99: load.p99,
          statuses: load.statuses,
          errors: load.errors,
          timeouts: load.timeouts,
        },
      });
      checks.expect(
        headersCut,
        `${slowHeaders.filter((h) => h.closedAt === undefined).length} slow-header sockets were still open after 60 s`,
      );
      checks.expect(
        bodiesCut,
        `${slowBodies.filter((h) => h.closedAt === undefined).length} trickled uploads were still open after 75 s`,
      );
      checks.expect(min(lifetimes(slowHeaders)) >= 9, 'a slow-header socket was cut before the 10 s headers timeout');
      checks.expect(
        oversizedAnswers.every((a) => a.startsWith('HTTP/1.1 413')),
        `oversized bodies answered ${JSON.stringify(statusCounts)} (want 413 each)`,
      );
      const non200 = Object.entries(load.statuses).reduce((n, [s, c]) => n + (s === '200' ? 0 : c), 0);
      checks.expect(
        non200 === 0 && load.errors === 0 && load.timeouts === 0,
        `ordinary traffic during the attack: ${JSON.stringify(load.statuses)}, ${load.errors} errors, ${load.timeouts} timeouts`,
      );
      checks.expect(
        load.rps >= baseline.rps * 0.5,
        `ordinary traffic fell from ${Math.round(baseline.rps)} to ${Math.round(load.rps)} req/s during the attack`,
      );
    } finally {
      for (const h of held) h.socket.destroy();
      await server.stop();
    }
  });
}
