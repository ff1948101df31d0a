// The trusted-host rule (each document's `x-trusted-hosts`): without PUBLIC_BASE_URL only loopback
// names, the listen host and the connection's own address are answered for; any other Host is a
// 421 `misdirected_request` before anything is echoed. With PUBLIC_BASE_URL, Host is never read.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { hostOfHeader, hostTrust, isTrustedHost } from '../../server/http/trusted-host.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { signedRequest } from '../server/support/http.ts';

/** One request with a Host header of our choosing (fetch would not let us set it). */
function get(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('hostOfHeader', () => {
  it.each([
    ['localhost:8080', 'localhost'],
    ['LOCALHOST', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['[::1]:80', '::1'],
    ['api.example.com:443', 'api.example.com'],
  ])('reads %s as %s', (header, host) => expect(hostOfHeader(header)).toBe(host));

  it.each([
    'evil.example@127.0.0.1',
    '127.0.0.1/x',
    'localhost:99999',
    'a b',
    '',
    ':80',
    'localhost:',
    '-bad.example',
    '[::1',
  ])('refuses the malformed %j', (header) => expect(hostOfHeader(header)).toBeUndefined());
});

describe('isTrustedHost', () => {
  it('trusts loopback names and addresses', () => {
    for (const host of ['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '::1'])
      expect(isTrustedHost(host, undefined, undefined), host).toBe(true);
  });
  it('trusts the configured listen host, but not a wildcard', () => {
    expect(isTrustedHost('sandbox.internal', 'sandbox.internal', undefined)).toBe(true);
    expect(isTrustedHost('0.0.0.0', '0.0.0.0', undefined)).toBe(false);
  });
  it('trusts the address the connection arrived at, IPv4-mapped or not', () => {
    expect(isTrustedHost('10.1.2.3', '0.0.0.0', '::ffff:10.1.2.3')).toBe(true);
    expect(isTrustedHost('10.1.2.3', '0.0.0.0', '10.1.2.4')).toBe(false);
  });
  it('trusts no other name, whatever the connection', () => {
    expect(isTrustedHost('evil.example', '0.0.0.0', '127.0.0.1')).toBe(false);
    expect(isTrustedHost('localhost.evil.example', undefined, '127.0.0.1')).toBe(false);
  });
});

describe('hostTrust without PUBLIC_BASE_URL', () => {
  /** The middleware's verdict on one request: true when it passed, else the refusal's code. */
  const verdict = (middleware: ReturnType<typeof hostTrust>['middleware'], host: string, localAddress: string) => {
    let outcome: unknown = 'not called';
    const req = { headers: { host }, socket: { localAddress } } as unknown as Parameters<typeof middleware>[0];
    middleware(req, {} as Parameters<typeof middleware>[1], (err?: unknown) => {
      outcome = err === undefined ? true : (err as { code?: string }).code;
    });
    return outcome;
  };

  it('judges each Host against the address the connection arrived at, however often it was judged before', () => {
    // Verdicts are kept per Host value and local address: a kept one must not serve another address.
    const { middleware } = hostTrust({ listenHost: '0.0.0.0' });
    for (let round = 0; round < 2; round++) {
      expect(verdict(middleware, '10.1.2.3:8080', '10.1.2.3')).toBe(true);
      expect(verdict(middleware, '10.1.2.3:8080', '10.1.2.4')).toBe('misdirected_request');
      expect(verdict(middleware, '10.1.2.3:8080', '::ffff:10.1.2.3')).toBe(true);
      expect(verdict(middleware, 'evil.example', '10.1.2.3')).toBe('misdirected_request');
    }
  });

  it('keeps judging right past the bound of kept verdicts', () => {
    const { middleware } = hostTrust({ listenHost: '0.0.0.0' });
    for (let i = 0; i < 1500; i++)
      expect(verdict(middleware, `h${i}.example`, '127.0.0.1')).toBe('misdirected_request');
    expect(verdict(middleware, 'localhost', '127.0.0.1')).toBe(true);
    expect(verdict(middleware, 'h0.example', '127.0.0.1')).toBe('misdirected_request');
  });
});

describe('a server without PUBLIC_BASE_URL', () => {
  let h: Harness;
  let code: string;
  beforeAll(async () => {
    h = await startHarness();
    const credential = await h.mint({ scopes: ['refer'], affiliate: true });
    const link = await signedRequest(h, credential, {
      method: 'POST',
      path: '/api/partner/v1/links',
      body: { type: 'generic' },
    });
    expect(link.status).toBe(201);
    code = new URL((link.body as { url: string }).url).pathname.split('/r/')[1] ?? '';
    expect(code).not.toBe('');
  });
  afterAll(() => h.close());

  it.each([
    ['the referral redirect', 'GET', '/r/CODE'],
    ['the OAuth metadata (issuer)', 'GET', '/.well-known/oauth-authorization-server'],
    ['the API index (links)', 'GET', '/api/v1'],
    ['the docs as Markdown (links)', 'GET', '/docs.md'],
    ['the MCP endpoint (DNS rebinding)', 'POST', '/mcp'],
    ['the partner API', 'GET', '/api/partner/v1/availability?domain=a.com'],
  ])('refuses %s for Host: evil.example with 421 misdirected_request, echoing nothing', async (_name, method, path) => {
    const headers: Record<string, string> = {
      host: 'evil.example',
      origin: 'http://evil.example',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const body = method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) : undefined;
    const res = await get(h.baseUrl, path.replace('CODE', code), headers, method, body);
    expect(res.status).toBe(421);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'misdirected_request' });
    expect(res.headers.location).toBeUndefined();
    expect(res.body.includes('http://evil.example')).toBe(false);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('answers loopback names and builds its URLs from them', async () => {
    const port = new URL(h.baseUrl).port;
    const meta = await get(h.baseUrl, '/.well-known/oauth-authorization-server', { host: `localhost:${port}` });
    expect(meta.status).toBe(200);
    expect(JSON.parse(meta.body).issuer).toBe(`http://localhost:${port}`);
    const redirect = await get(h.baseUrl, `/r/${code}`, { host: `127.0.0.1:${port}` });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/`));
  });
});

describe('a server with PUBLIC_BASE_URL', () => {
  it('never reads Host: every absolute URL names the configured base', async () => {
    const h = await startHarness();
    try {
      const app = createApp({
        config: {
          adminToken: undefined,
          masterKey: h.masterKey,
          validateResponses: true,
          publicBaseUrl: 'https://api.example.com',
        },
        store: h.store,
        clock: h.clock,
        log: () => {},
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      try {
        const { port } = server.address() as { port: number };
        const meta = await get(`http://127.0.0.1:${port}`, '/.well-known/oauth-authorization-server', {
          host: 'evil.example',
        });
        expect(meta.status).toBe(200);
        expect(JSON.parse(meta.body).issuer).toBe('https://api.example.com');
        expect(meta.body.includes('evil.example')).toBe(false);
      } finally {
        await new Promise((r) => server.close(r));
      }
    } finally {
      await h.close();
    }
  });

  it('trusts the configured listen host when there is no base URL', async () => {
    const h = await startHarness();
    try {
      const app = createApp({
        config: { adminToken: undefined, masterKey: h.masterKey, validateResponses: true, host: 'sandbox.internal' },
        store: h.store,
        clock: h.clock,
        log: () => {},
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      try {
        const { port } = server.address() as { port: number };
        const meta = await get(`http://127.0.0.1:${port}`, '/api/v1', { host: `sandbox.internal:${port}` });
        expect(meta.status).toBe(200);
        expect(meta.body).toContain(`http://sandbox.internal:${port}/openapi.json`);
        const other = await get(`http://127.0.0.1:${port}`, '/api/v1', { host: `other.internal:${port}` });
        expect(other.status).toBe(421);
      } finally {
        await new Promise((r) => server.close(r));
      }
    } finally {
      await h.close();
    }
  });
});
