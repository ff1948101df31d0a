// Security regression (issue 19, findings 1 and 2), replayed from the outside over real HTTP
// against the server `npm start` runs (startServer), with its resolver injected so a name can be
// re-pointed between registration and delivery, as DNS rebinding does:
//   - a live endpoint registered while its name pointed at a public address, then re-pointed to
//     loopback, is never connected to; every attempt resolves again, is refused and reported;
//   - sandbox reaches loopback while its name points there, and nothing inward once re-pointed;
//   - live registration refuses every IPv4-in-IPv6 and special-purpose address of finding 2,
//     a name that does not resolve, and a name that resolves inward; sandbox accepts a name that
//     does not resolve (checked again at each attempt).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS, sign } from '../../client/protocol/index.ts';
import { configFromEnv } from '../../server/config.ts';
import { startServer, type RunningServer } from '../../server/embedded.ts';
import { generateInventory } from '../../server/inventory/generate.ts';
import { tcpListener, type TcpListener } from '../server/support/tcp-listener.ts';

const ADMIN_TOKEN = 'security-admin-token-0123456789abcdef'; // 32+: the https deployment below refuses shorter
// WebhookDelivery.last_error of a refused destination (partner document): a class, no address.
const DESTINATION_REFUSED =
  "destination_refused: the URL's host does not resolve, or not only to addresses this deployment's webhooks may reach (URL rules of PUT /api/partner/webhooks)";
const WEBHOOKS = '/api/partner/webhooks';

interface Credential {
  key_id: string;
  secret: string;
}

/** The DNS the server sees: a table the test re-points, and every question it was asked. */
const answers = new Map<string, string[]>();
const asked: string[] = [];
async function resolve(hostname: string): Promise<string[]> {
  asked.push(hostname);
  const a = answers.get(hostname);
  if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return a;
}

let server: RunningServer;
let dataDir: string;
const closers: Array<() => Promise<void>> = [];
const liveDomains = [...generateInventory({ size: 20, seed: 7 })];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'security-webhooks-'));
  const config = configFromEnv({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    SANDBOX_INVENTORY_SIZE: '50',
    ADMIN_TOKEN,
    // Retries 10 ms, 30 ms, 120 ms … apart, so several attempts happen within the test.
    WEBHOOK_BACKOFF_SCALE: '0.001',
    WEBHOOK_TIMEOUT_MS: '2000',
  });
  server = await startServer({ config, log: () => {}, resolve });
  // Live has no generated inventory; the operator would list domains. The test lists a few.
  await server.store.inventory.replaceEnvironment('live', liveDomains);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all(closers.map((c) => c()));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function admin(path: string, body: unknown = {}, srv = server): Promise<any> {
  const res = await fetch(`${srv.url}/api/admin/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as unknown;
  if (res.status >= 300) throw new Error(`admin ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const mint = (environment: 'sandbox' | 'live', srv = server): Promise<Credential> =>
  admin(
    '/credentials',
    {
      environment,
      scopes: ['buy', 'webhook'],
      approved: true,
      rate_limits: { search: 1000, write: 1000, reporting: 1000 },
    },
    srv,
  );

async function call(
  cred: Credential,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  srv = server,
): Promise<{ status: number; body: any }> {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomUUID();
  const res = await fetch(`${srv.url}${path}`, {
    method,
    headers: {
      [HEADERS.keyId]: cred.key_id,
      [HEADERS.timestamp]: timestamp,
      [HEADERS.nonce]: nonce,
      [HEADERS.signature]: sign({
        secret: cred.secret,
        method,
        path,
        query: '',
        timestamp,
        nonce,
        body: Buffer.from(raw, 'utf8'),
      }),
      ...(raw ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(raw ? { body: raw } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

const register = (cred: Credential, url: string, srv = server) =>
  call(cred, 'PUT', WEBHOOKS, { url, secret: `whsec_${randomUUID()}` }, {}, srv);

async function order(cred: Credential, domain: string, price: number, srv = server): Promise<any> {
  const r = await call(
    cred,
    'POST',
    '/api/partner/v1/orders',
    { domain, expected_price: price, currency: 'USD', buyer: { email: 'jane.doe@example.org' } },
    { [HEADERS.idempotencyKey]: randomUUID() },
    srv,
  );
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

/** Polls GET /api/partner/webhooks until `pick` finds what it wants in recent_deliveries. */
async function deliveriesUntil(
  cred: Credential,
  pick: (deliveries: any[]) => boolean,
  what: string,
  timeoutMs = 20_000,
  srv = server,
): Promise<any[]> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const r = await call(cred, 'GET', WEBHOOKS, undefined, {}, srv);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    last = r.body.recent_deliveries;
    if (pick(r.body.recent_deliveries as any[])) return r.body.recent_deliveries as any[];
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function loopbackListener(): Promise<TcpListener> {
  const l = await tcpListener();
  closers.push(() => l.close());
  return l;
}

describe('DNS rebinding (finding 1): checked at every connection', () => {
  it('live: a name re-pointed to loopback after registration is never connected to; each attempt is refused and reported', async () => {
    const loopback = await loopbackListener();
    answers.set('rebind.example', ['93.184.216.34']);
    const live = await mint('live');
    const registered = await register(live, `https://rebind.example:${loopback.port}/hook`);
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);

    // The attacker re-points the name at the server's own loopback.
    answers.set('rebind.example', ['127.0.0.1']);
    const askedBefore = asked.filter((n) => n === 'rebind.example').length;
    const listing = liveDomains[0]!;
    const placed = await order(live, listing.domain, listing.price_cents);

    const [delivery] = await deliveriesUntil(live, (d) => d[0]?.attempts >= 3, 'three refused attempts');
    expect(delivery.event_type).toBe('order.recorded');
    expect(delivery.status).toBe('pending');
    // The partner learns the class, never the address the name now points at.
    expect(delivery.last_error).toBe(DESTINATION_REFUSED);
    expect(delivery.next_attempt_at).toEqual(expect.any(String));
    // Not one connection reached loopback, and every attempt asked the resolver again.
    expect(loopback.connections()).toBe(0);
    expect(asked.filter((n) => n === 'rebind.example').length - askedBefore).toBeGreaterThanOrEqual(3);
    // The event is not lost: it is in the history for replay.
    const events = await call(live, 'GET', '/api/partner/v1/events');
    expect(
      events.body.events.map((e: { id: string; data: { order: { public_id: string } } }) => [
        e.id,
        e.data.order.public_id,
      ]),
    ).toEqual([[delivery.event_id, placed.public_id]]);
  });

  it('sandbox: reaches loopback while the name points there, and nothing inward once it is re-pointed', async () => {
    const hosts: string[] = [];
    const rx = createHttpServer((req, res) => {
      hosts.push(String(req.headers.host));
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r));
    closers.push(async () => {
      rx.closeAllConnections();
      await new Promise<void>((r) => rx.close(() => r()));
    });
    const port = (rx.address() as AddressInfo).port;

    answers.set('dev.example', ['127.0.0.1']);
    const sandbox = await mint('sandbox');
    expect((await register(sandbox, `http://dev.example:${port}/hook`)).status).toBe(200);
    // The sandbox inventory is the generated one (seed 1) that startServer lists.
    const listing = [...generateInventory({ size: 50, seed: 1 })][5]!;
    const placed = await order(sandbox, listing.domain, listing.price_cents);
    await deliveriesUntil(sandbox, (d) => d[0]?.status === 'delivered', 'the sandbox delivery');
    expect(hosts).toEqual([`dev.example:${port}`]);

    // Re-pointed at the cloud metadata address: the next event is refused, not sent.
    answers.set('dev.example', ['169.254.169.254']);
    await admin(`/orders/${placed.public_id}/start-transfer`);
    const [newest] = await deliveriesUntil(
      sandbox,
      (d) => d[0]?.event_type === 'order.transfer_started' && d[0].attempts >= 1,
      'the refused attempt',
    );
    expect(newest.last_error).toBe(DESTINATION_REFUSED);
    expect(hosts).toHaveLength(1);
  });
});

describe('registration (finding 2 and the name rules), over HTTP', () => {
  const FINDING_2 = [
    '[::a9fe:a9fe]',
    '[::7f00:1]',
    '[::a00:1]',
    '[2002:7f00:1::1]',
    '[64:ff9b:1::7f00:1]',
    '[::ffff:0:7f00:1]',
    '[fec0::1]',
    '192.0.0.1',
    '198.18.0.1',
  ];

  it('live refuses every address of finding 2 with 400 validation_error at /body/url', async () => {
    const live = await mint('live');
    for (const host of FINDING_2) {
      const r = await register(live, `https://${host}:8443/hook`);
      expect(r.status, `${host}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.code).toBe('validation_error');
      expect(r.body.details[0].path).toBe('/body/url');
    }
  });

  it('refuses port 0 and a fragment with 400 validation_error at /body/url, sandbox loopback included (probe round 3, I10)', async () => {
    const sandbox = await mint('sandbox');
    for (const url of ['http://127.0.0.1:0/', 'http://127.0.0.1:9000/h#frag', 'http://localhost:9000/h#']) {
      const r = await register(sandbox, url);
      expect(r.status, `${url}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.code).toBe('validation_error');
      expect(r.body.details[0].path).toBe('/body/url');
    }
    expect((await register(sandbox, 'http://127.0.0.1:9000/h')).status).toBe(200);
  });

  it('live refuses a name that does not resolve and a name resolving inward; sandbox accepts the first', async () => {
    answers.set('inward.example', ['93.184.216.34', '::ffff:a9fe:a9fe']);
    const live = await mint('live');
    const nx = await register(live, 'https://metadata.nxdomain.example/computeMetadata/v1/');
    expect(nx.status).toBe(400);
    const inward = await register(live, 'https://inward.example/hook');
    expect(inward.status).toBe(400);
    // One answer for both, naming no address: the server's resolver is not a lookup service.
    const rule = 'must resolve, from this server, only to public addresses';
    expect(nx.body.message).toBe(
      `url host metadata.nxdomain.example ${rule}; live webhooks of this deployment reach nothing else`,
    );
    expect(inward.body.message).toBe(
      `url host inward.example ${rule}; live webhooks of this deployment reach nothing else`,
    );
    expect(JSON.stringify(inward.body)).not.toMatch(/a9fe|169\.254|metadata address/);
    const sandbox = await mint('sandbox');
    expect((await register(sandbox, 'http://metadata.nxdomain.example/hook')).status).toBe(200);
  });
});

describe('the host network stays private (issue 31, item 2)', () => {
  it('a sandbox partner of a loopback `npm start` learns only the class of a failure: no address, port, errno or parser text', async () => {
    const closed = await tcpListener();
    const closedPort = closed.port;
    await closed.close();
    const unauthorised = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(401).end();
    });
    const sockets: Socket[] = [];
    const notHttp = createTcpServer((socket) => {
      sockets.push(socket);
      socket.end('SSH-2.0-OpenSSH_9.6\r\n');
    });
    const silent = createTcpServer((socket) => sockets.push(socket));
    for (const s of [unauthorised, notHttp, silent]) {
      await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
      closers.push(async () => {
        for (const socket of sockets) socket.destroy();
        if ('closeAllConnections' in s) s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      });
    }
    const portOf = (s: { address(): unknown }) => (s.address() as AddressInfo).port;
    const cases = [
      { port: closedPort, expected: 'connection_refused: the connection was refused' },
      { port: portOf(unauthorised), expected: 'http_status 401: the receiver answered HTTP 401' },
      { port: portOf(notHttp), expected: 'not_http: the receiver did not answer in HTTP' },
      // WEBHOOK_TIMEOUT_MS of this server.
      { port: portOf(silent), expected: 'timeout: no answer within 2 s' },
    ];
    const listings = [...generateInventory({ size: 50, seed: 1 })].slice(10);
    await Promise.all(
      cases.map(async ({ port, expected }, i) => {
        const sandbox = await mint('sandbox');
        expect((await register(sandbox, `http://127.0.0.1:${port}/hook`)).status).toBe(200);
        await order(sandbox, listings[i]!.domain, listings[i]!.price_cents);
        const [delivery] = await deliveriesUntil(sandbox, (d) => d[0]?.attempts >= 1, `the attempt on ${expected}`);
        expect(delivery.last_error).toBe(expected);
        expect(delivery.last_error).not.toContain(String(port));
      }),
    );
  });

  describe('a hosted sandbox (PUBLIC_BASE_URL https): loopback is refused', () => {
    let hosted: RunningServer;
    let hostedDir: string;
    beforeAll(async () => {
      hostedDir = mkdtempSync(join(tmpdir(), 'security-webhooks-hosted-'));
      const config = configFromEnv({
        DATA_DIR: hostedDir,
        PORT: '0',
        HOST: '127.0.0.1',
        PUBLIC_BASE_URL: 'https://sandbox.example.com',
        SANDBOX_USER_PASSWORD: 'security-webhooks-secret-password',
        SANDBOX_INVENTORY_SIZE: '50',
        ADMIN_TOKEN,
        WEBHOOK_BACKOFF_SCALE: '0.001',
        WEBHOOK_TIMEOUT_MS: '2000',
      });
      hosted = await startServer({ config, log: () => {}, resolve });
    }, 60_000);
    afterAll(async () => {
      await hosted?.stop();
      if (hostedDir) rmSync(hostedDir, { recursive: true, force: true });
    });

    it('refuses a loopback literal at registration and a name pointing there at delivery, connecting to nothing', async () => {
      const listener = await loopbackListener();
      const sandbox = await mint('sandbox', hosted);
      const literal = await register(sandbox, `http://127.0.0.1:${listener.port}/hook`, hosted);
      expect(literal.status, JSON.stringify(literal.body)).toBe(400);
      expect(literal.body.code).toBe('validation_error');
      expect(literal.body.details[0].path).toBe('/body/url');
      expect(literal.body.message).toContain("this deployment's sandbox webhooks must reach a public address");
      for (const host of ['localhost', '[::1]']) {
        const r = await register(sandbox, `http://${host}:${listener.port}/hook`, hosted);
        expect(r.status, host).toBe(400);
      }

      // A name is judged at each attempt (sandbox accepts names at registration), and refused there.
      answers.set('scan.example', ['127.0.0.1']);
      expect((await register(sandbox, `http://scan.example:${listener.port}/hook`, hosted)).status).toBe(200);
      const listing = [...generateInventory({ size: 50, seed: 1 })][20]!;
      await order(sandbox, listing.domain, listing.price_cents, hosted);
      const [delivery] = await deliveriesUntil(
        sandbox,
        (d) => d[0]?.attempts >= 2,
        'two refused attempts',
        20_000,
        hosted,
      );
      expect(delivery.last_error).toBe(DESTINATION_REFUSED);
      expect(listener.connections()).toBe(0);
    });
  });
});
