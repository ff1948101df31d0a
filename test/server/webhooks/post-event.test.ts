// One delivery attempt over real sockets: the connection goes to an address the environment's
// rule accepts, as resolved at that moment, or nowhere (partner document, PUT
// /api/partner/webhooks "URL rules" and x-webhook-delivery destination-check and redirects).
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { postEvent, type Attempt } from '../../../server/webhooks/post-event.ts';
import type { Resolve } from '../../../server/webhooks/resolve.ts';
import { tcpListener, type TcpListener } from '../support/tcp-listener.ts';

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
});

const close = (server: { close(cb: () => void): unknown }) => () =>
  new Promise<void>((resolve) => server.close(() => resolve()));

async function countingListener(): Promise<TcpListener> {
  const l = await tcpListener();
  closers.push(() => l.close());
  return l;
}

/** An HTTP receiver on loopback answering `status` (and `headers`), recording what arrives. */
async function httpReceiver(
  status = 200,
  headers: Record<string, string> = {},
): Promise<{ port: number; requests: Array<{ headers: IncomingHttpHeaders; body: string; socket: unknown }> }> {
  const requests: Array<{ headers: IncomingHttpHeaders; body: string; socket: unknown }> = [];
  const server: Server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      requests.push({ headers: req.headers, body, socket: req.socket });
      res.writeHead(status, headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await close(server)();
  });
  return { port: (server.address() as AddressInfo).port, requests };
}

/** A resolver answering from a table, counting the questions it was asked. */
function table(answers: Record<string, string[]>): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const a = answers[hostname];
    if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return a;
  };
  return Object.assign(resolve, { asked });
}

const attempt = (over: Partial<Attempt> & Pick<Attempt, 'url' | 'environment' | 'resolve'>): Attempt => ({
  body: '{"id":"evt_test"}',
  headers: { 'content-type': 'application/json' },
  timeoutMs: 2000,
  ...over,
});

describe('postEvent', () => {
  it('connects to the address the resolver gives at this attempt, keeping the name in Host', async () => {
    const rx = await httpReceiver(204);
    const resolve = table({ 'hooks.partner.test': ['127.0.0.1'] });
    const outcome = await postEvent(
      attempt({ url: `http://hooks.partner.test:${rx.port}/in`, environment: 'sandbox', resolve }),
    );
    expect(outcome).toEqual({ status: 204 });
    expect(rx.requests).toHaveLength(1);
    expect(rx.requests[0]!.headers.host).toBe(`hooks.partner.test:${rx.port}`);
    expect(rx.requests[0]!.body).toBe('{"id":"evt_test"}');
    expect(resolve.asked).toEqual(['hooks.partner.test']);
  });

  it('each attempt resolves again and opens a connection of its own', async () => {
    const rx = await httpReceiver(200);
    const sockets = new Set<unknown>();
    const resolve = table({ 'again.partner.test': ['127.0.0.1'] });
    for (let i = 0; i < 3; i++) {
      expect(
        await postEvent(attempt({ url: `http://again.partner.test:${rx.port}/`, environment: 'sandbox', resolve })),
      ).toEqual({ status: 200 });
    }
    for (const r of rx.requests) sockets.add(r.socket);
    expect(resolve.asked).toEqual(['again.partner.test', 'again.partner.test', 'again.partner.test']);
    expect(sockets.size).toBe(3);
  });

  it('live: a name resolving to loopback is refused before any connection, with the reason', async () => {
    const listener = await countingListener();
    const resolve = table({ 'rebind.partner.test': ['127.0.0.1'] });
    for (const scheme of ['http', 'https']) {
      const outcome = await postEvent(
        attempt({ url: `${scheme}://rebind.partner.test:${listener.port}/hook`, environment: 'live', resolve }),
      );
      expect(outcome).toEqual({
        failure: {
          class: 'destination_refused',
          detail: expect.stringContaining(
            'refused before connecting: rebind.partner.test resolves to 127.0.0.1, a loopback address',
          ),
        },
      });
      expect(outcome).toEqual({
        failure: {
          class: 'destination_refused',
          detail: expect.stringContaining('live webhooks must reach a public address'),
        },
      });
    }
    expect(listener.connections()).toBe(0);
  });

  it('a name with one forbidden address among public ones is refused whole', async () => {
    const listener = await countingListener();
    const resolve = table({ 'mixed.partner.test': ['93.184.216.34', '::ffff:7f00:1', '127.0.0.1'] });
    const outcome = await postEvent(
      attempt({
        url: `http://mixed.partner.test:${listener.port}/`,
        environment: 'sandbox',
        resolve: table({ 'mixed.partner.test': ['127.0.0.1', '10.0.0.8'] }),
      }),
    );
    expect(outcome).toEqual({
      failure: { class: 'destination_refused', detail: expect.stringContaining('10.0.0.8, a private address') },
    });
    const live = await postEvent(
      attempt({ url: `https://mixed.partner.test:${listener.port}/`, environment: 'live', resolve }),
    );
    expect(live).toEqual({
      failure: { class: 'destination_refused', detail: expect.stringContaining('::ffff:7f00:1, a loopback address') },
    });
    expect(listener.connections()).toBe(0);
  });

  it('a literal address is judged without a lookup: live loopback is refused, sandbox loopback delivered', async () => {
    const listener = await countingListener();
    const resolve = table({});
    expect(
      await postEvent(attempt({ url: `https://127.0.0.1:${listener.port}/`, environment: 'live', resolve })),
    ).toEqual({
      failure: {
        class: 'destination_refused',
        detail: expect.stringContaining('refused before connecting: 127.0.0.1 is a loopback address'),
      },
    });
    expect(
      await postEvent(attempt({ url: `http://[::ffff:7f00:1]:${listener.port}/`, environment: 'live', resolve })),
    ).toEqual({ failure: { class: 'destination_refused', detail: expect.stringContaining('loopback') } });
    expect(listener.connections()).toBe(0);
    const rx = await httpReceiver(200);
    expect(await postEvent(attempt({ url: `http://127.0.0.1:${rx.port}/`, environment: 'sandbox', resolve }))).toEqual({
      status: 200,
    });
    expect(resolve.asked).toEqual([]);
  });

  it('sandbox: a metadata or private answer is refused too', async () => {
    const listener = await countingListener();
    for (const address of ['169.254.169.254', '10.1.2.3', '::ffff:a9fe:a9fe', '64:ff9b::7f00:1']) {
      const outcome = await postEvent(
        attempt({
          url: `http://inward.partner.test:${listener.port}/`,
          environment: 'sandbox',
          resolve: table({ 'inward.partner.test': [address] }),
        }),
      );
      expect(outcome, address).toEqual({
        failure: { class: 'destination_refused', detail: expect.stringContaining(`resolves to ${address}`) },
      });
    }
    expect(listener.connections()).toBe(0);
  });

  it('a name that does not resolve is a failed attempt that says so', async () => {
    const outcome = await postEvent(
      attempt({ url: 'https://gone.partner.test/hook', environment: 'live', resolve: table({}) }),
    );
    expect(outcome).toEqual({
      failure: { class: 'destination_refused', detail: 'gone.partner.test does not resolve (ENOTFOUND)' },
    });
  });

  it('does not follow a redirect: the 3xx is the outcome, the Location is never asked', async () => {
    const target = await httpReceiver(200);
    const rx = await httpReceiver(302, { location: `http://127.0.0.1:${target.port}/elsewhere` });
    const outcome = await postEvent(
      attempt({ url: `http://127.0.0.1:${rx.port}/hook`, environment: 'sandbox', resolve: table({}) }),
    );
    expect(outcome).toEqual({ status: 302 });
    expect(rx.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  it('a receiver silent past the timeout is a failed attempt', async () => {
    const server = createHttpServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      server.closeAllConnections();
      await close(server)();
    });
    const port = (server.address() as AddressInfo).port;
    const started = Date.now();
    const outcome = await postEvent(
      attempt({ url: `http://127.0.0.1:${port}/`, environment: 'sandbox', resolve: table({}), timeoutMs: 300 }),
    );
    expect(outcome).toEqual({ failure: { class: 'timeout', detail: 'no answer within 0.3 s' } });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a closed port is a failed attempt naming the error', async () => {
    const closed = await tcpListener();
    const port = closed.port;
    await closed.close();
    const outcome = await postEvent(
      attempt({ url: `http://127.0.0.1:${port}/`, environment: 'sandbox', resolve: table({}) }),
    );
    expect(outcome).toEqual({
      failure: { class: 'connection_refused', detail: expect.stringMatching(/ECONNREFUSED/) },
    });
  });

  it('a port that does not speak HTTP is not_http; one that hangs up is connection_failed', async () => {
    const sockets: Socket[] = [];
    const garbage = createTcpServer((socket) => {
      sockets.push(socket);
      socket.end('SSH-2.0-OpenSSH_9.6\r\n');
    });
    const hangup = createTcpServer((socket) => socket.destroy());
    for (const server of [garbage, hangup]) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(() => {
        for (const socket of sockets) socket.destroy();
        return close(server)();
      });
    }
    const at = (server: typeof garbage) =>
      postEvent(
        attempt({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
          environment: 'sandbox',
          resolve: table({}),
        }),
      );
    expect(await at(garbage)).toEqual({ failure: { class: 'not_http', detail: expect.stringMatching(/HPE_/) } });
    expect(await at(hangup)).toEqual({ failure: { class: 'connection_failed', detail: expect.any(String) } });
  });

  it('a deployment that refuses sandbox loopback connects to none of it, literal or resolved', async () => {
    const listener = await countingListener();
    const resolve = table({ 'dev.partner.test': ['127.0.0.1'] });
    for (const url of [`http://127.0.0.1:${listener.port}/`, `http://dev.partner.test:${listener.port}/`]) {
      const outcome = await postEvent(
        attempt({ url, environment: 'sandbox', resolve, destinations: { sandboxLoopback: false } }),
      );
      expect(outcome, url).toEqual({
        failure: {
          class: 'destination_refused',
          detail: expect.stringContaining("this deployment's sandbox webhooks must reach a public address"),
        },
      });
    }
    expect(listener.connections()).toBe(0);
  });
});
