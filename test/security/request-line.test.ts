// Requests no browser sends, written byte for byte on a socket (issue 31, items 6, 8 and 9):
// targets Express's router cannot parse (`x-request-target`), repeated Host, credential and
// signing headers (`x-single-headers`), a Host with an empty label (`x-trusted-hosts`), and the
// case of the bearer scheme. Each answer must have come through the whole pipeline: the `Error`
// body in JSON, `X-Request-Id`, the security headers, and a log line.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../client/protocol/index.ts';
import { createLogger } from '../../server/ops/logger.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from '../server/harness.ts';
import { nowSeconds, type Credential } from '../server/support/http.ts';
import { rawRequest, type RawAnswer } from './support.ts';

const lines: Array<Record<string, unknown>> = [];
const logger = createLogger({
  level: 'info',
  destination: { write: (text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>) },
});

function expectPipelineError(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { code: string; message: string; request_id: string };
  expect(body.code).toBe(code);
  expect(body.message.length).toBeGreaterThan(0);
  const id = answer.headers['x-request-id'];
  expect(id).toBeTruthy();
  expect(body.request_id).toBe(id);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(lines.some((l) => l.req_id === id && l.status === status)).toBe(true);
}

describe('the request line and headers', () => {
  let h: Harness;
  let host: string;
  let cred: Credential;
  const warnings: string[] = [];
  const onWarning = (w: Error) => void warnings.push(`${w.name}: ${w.message}`);
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false, logger });
    host = new URL(h.baseUrl).host;
    cred = await h.mint({ scopes: ['search'] });
    process.on('warning', onWarning);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await h.close();
  });

  describe('odd request targets (x-request-target)', () => {
    it.each(['http://[', 'http://', 'http://xn--/api/v1', 'http://127.0.0.1:-1/api/v1', 'ftp://x/api/v1'])(
      'answers GET %s with 400 validation_error through the pipeline',
      async (target) => {
        const answer = await rawRequest(h.baseUrl, [`GET ${target} HTTP/1.1`, `Host: ${host}`]);
        expectPipelineError(answer, 400, 'validation_error');
        expect(JSON.parse(answer.body).message).toMatch(/request target/);
      },
    );

    it('checks the Host first: an untrusted Host with an odd target is a 421', async () => {
      const answer = await rawRequest(h.baseUrl, ['GET http://[ HTTP/1.1', 'Host: evil.example']);
      expectPipelineError(answer, 421, 'misdirected_request');
    });

    it('gives a partner target with an invalid port the documented 400, and Node no DEP0170 warning', async () => {
      const answer = await rawRequest(h.baseUrl, [
        'GET http://127.0.0.1:-1/api/partner/v1/availability?domain=a.com HTTP/1.1',
        `Host: ${host}`,
      ]);
      expectPipelineError(answer, 400, 'validation_error');
      // A warning is emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.includes('DEP0170'))).toEqual([]);
    });

    it('still routes a well-formed absolute target on its path', async () => {
      const answer = await rawRequest(h.baseUrl, [`GET http://${host}/api/v1 HTTP/1.1`, `Host: ${host}`]);
      expect(answer.status, answer.body).toBe(200);
    });
  });

  it('checks the authority of an absolute target like a Host', async () => {
    const answer = await rawRequest(h.baseUrl, ['GET http://evil.example/api/v1 HTTP/1.1', `Host: ${host}`]);
    expectPipelineError(answer, 421, 'misdirected_request');
  });

  it.each(['0x7f.1', '127.1', '2130706433', '0177.0.0.1'])(
    'checks the authority of an absolute target as sent: %s is no loopback name (421), whatever a URL parser makes of it',
    async (name) => {
      const port = new URL(h.baseUrl).port;
      const answer = await rawRequest(h.baseUrl, [`GET http://${name}:${port}/api/v1 HTTP/1.1`, `Host: ${host}`]);
      expectPipelineError(answer, 421, 'misdirected_request');
    },
  );

  it('refuses userinfo in an absolute target with 400 (RFC 9110 §4.2.4)', async () => {
    for (const userinfo of ['evil.com@', 'user:pass@', '@']) {
      const answer = await rawRequest(h.baseUrl, [`GET http://${userinfo}${host}/api/v1 HTTP/1.1`, `Host: ${host}`]);
      expectPipelineError(answer, 400, 'validation_error');
      expect(JSON.parse(answer.body).message).toMatch(/request target/);
    }
  });

  it("builds absolute URLs from an absolute target's authority, not from Host (RFC 9112 §3.2.2)", async () => {
    const port = new URL(h.baseUrl).port;
    const answer = await rawRequest(h.baseUrl, [`GET http://localhost:${port}/api/v1 HTTP/1.1`, `Host: ${host}`]);
    expect(answer.status, answer.body).toBe(200);
    expect(answer.body).toContain(`http://localhost:${port}/`);
    expect(answer.body).not.toContain(`http://${host}/`);
  });

  it.each(['/api/v1#frag', '/r/abc?x=1#y', '/api/partner/v1/availability?domain=a.com#f'])(
    'refuses a fragment in the target %s with 400 on every surface',
    async (target) => {
      const answer = await rawRequest(h.baseUrl, [`GET ${target} HTTP/1.1`, `Host: ${host}`]);
      expectPipelineError(answer, 400, 'validation_error');
      expect(JSON.parse(answer.body).message).toMatch(/request target/);
    },
  );

  describe('Host', () => {
    it('refuses two Host headers with 400 (RFC 9112 §3.2), whichever comes first', async () => {
      for (const pair of [
        [host, 'evil.example'],
        ['evil.example', host],
        [host, host],
      ]) {
        const answer = await rawRequest(h.baseUrl, ['GET /api/v1 HTTP/1.1', ...pair.map((v) => `Host: ${v}`)]);
        expectPipelineError(answer, 400, 'validation_error');
        expect(answer.body).not.toContain('evil.example');
      }
    });

    it.each(['evil.com..localhost', '.localhost', 'a.-b.localhost', `${'a'.repeat(64)}.localhost`])(
      'refuses the malformed Host %s with 421 and does not echo it in a link',
      async (value) => {
        const answer = await rawRequest(h.baseUrl, ['GET /api/v1 HTTP/1.1', `Host: ${value}`]);
        expectPipelineError(answer, 421, 'misdirected_request');
      },
    );

    it.each(['127.0.0.1:0', 'localhost:0', '[::1]:0', '127.0.0.1:00000'])(
      'refuses port 0 in Host %s with 421, never copying it into a link',
      async (value) => {
        const answer = await rawRequest(h.baseUrl, ['GET /api/v1 HTTP/1.1', `Host: ${value}`]);
        expectPipelineError(answer, 421, 'misdirected_request');
        expect(answer.body).not.toMatch(/:0\//);
      },
    );

    it.each(['127.1', '0x7f.1', '0x7f000001'])('refuses the IPv4 shorthand %s as a Host with 421', async (value) => {
      const answer = await rawRequest(h.baseUrl, ['GET /api/v1 HTTP/1.1', `Host: ${value}`]);
      expectPipelineError(answer, 421, 'misdirected_request');
    });

    it('still answers app.localhost', async () => {
      const answer = await rawRequest(h.baseUrl, ['GET /api/v1 HTTP/1.1', 'Host: app.localhost']);
      expect(answer.status, answer.body).toBe(200);
    });
  });

  describe('Authorization', () => {
    it.each(['bearer', 'BEARER', 'bEaReR', 'Bearer'])('the admin API accepts the scheme spelled %s', async (scheme) => {
      const answer = await rawRequest(
        h.baseUrl,
        [
          'POST /api/admin/v1/credentials HTTP/1.1',
          `Host: ${host}`,
          'Content-Type: application/json',
          `Authorization: ${scheme} ${ADMIN_TOKEN}`,
        ],
        JSON.stringify({ environment: 'sandbox', scopes: ['search'] }),
      );
      expect(answer.status, answer.body).toBe(201);
    });

    it('refuses two Authorization headers with 400 on the admin and the public API', async () => {
      for (const path of ['/api/admin/v1/settlements/run', '/api/v1/me']) {
        const answer = await rawRequest(h.baseUrl, [
          `POST ${path} HTTP/1.1`,
          `Host: ${host}`,
          `Authorization: Bearer ${ADMIN_TOKEN}`,
          'Authorization: Bearer other',
        ]);
        expectPipelineError(answer, 400, 'validation_error');
      }
    });
  });

  describe('Content-Type (x-single-headers)', () => {
    it.each(['/api/domain/search', '/api/partner/v1/quotes', '/api/admin/v1/credentials'])(
      'refuses two Content-Type headers on POST %s with 400, before anything reads the body',
      async (path) => {
        const answer = await rawRequest(
          h.baseUrl,
          [`POST ${path} HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json', 'Content-Type: text/plain'],
          JSON.stringify({ q: 'coffee.com' }),
        );
        expectPipelineError(answer, 400, 'validation_error');
        expect(JSON.parse(answer.body).details).toEqual([{ path: '/headers/content-type', message: 'is repeated' }]);
      },
    );

    it('says what is missing when a body comes without Content-Type (415, never "media type undefined")', async () => {
      for (const [path, auth] of [
        ['/api/domain/search', []],
        ['/api/admin/v1/credentials', [`Authorization: Bearer ${ADMIN_TOKEN}`]],
      ] as const) {
        const answer = await rawRequest(
          h.baseUrl,
          [`POST ${path} HTTP/1.1`, `Host: ${host}`, ...auth],
          JSON.stringify({ q: 'coffee.com' }),
        );
        expectPipelineError(answer, 415, 'unsupported_media_type');
        const { message } = JSON.parse(answer.body) as { message: string };
        expect(message).not.toMatch(/undefined/);
        expect(message).toMatch(/no Content-Type header/);
      }
    });

    it('answers the same request with one Content-Type (the control)', async () => {
      const answer = await rawRequest(
        h.baseUrl,
        ['POST /api/domain/search HTTP/1.1', `Host: ${host}`, 'Content-Type: application/json'],
        JSON.stringify({ q: 'coffee.com' }),
      );
      expect(answer.status, answer.body).toBe(200);
    });
  });

  describe('signing headers', () => {
    const signed = (nonce: string) =>
      signedHeaders({
        keyId: cred.key_id,
        secret: cred.secret,
        method: 'GET',
        path: '/api/partner/v1/availability',
        query: 'domain=a.com',
        timestamp: String(nowSeconds(h)),
        nonce,
      });
    const send = (headers: Array<[string, string]>) =>
      rawRequest(h.baseUrl, [
        'GET /api/partner/v1/availability?domain=a.com HTTP/1.1',
        `Host: ${host}`,
        ...headers.map(([k, v]) => `${k}: ${v}`),
      ]);

    it('answers a request signed once (the control)', async () => {
      const answer = await send(Object.entries(signed(randomUUID())));
      expect(answer.status, answer.body).toBe(200);
    });

    it('refuses a nonce sent twice, even when the signature covers the joined value', async () => {
      // Node joins the two as "a, b": sign exactly that, so only the repetition is wrong.
      const a = randomUUID();
      const b = randomUUID();
      const headers = Object.entries(signed(`${a}, ${b}`)).filter(([k]) => k.toLowerCase() !== 'x-service-nonce');
      const answer = await send([...headers, ['X-Service-Nonce', a], ['X-Service-Nonce', b]]);
      expectPipelineError(answer, 400, 'validation_error');
      expect(JSON.parse(answer.body).details).toEqual([{ path: '/headers/x-service-nonce', message: 'is repeated' }]);
    });

    it.each(['X-Service-Key-Id', 'X-Service-Timestamp', 'X-Service-Signature', 'Idempotency-Key'])(
      'refuses %s sent twice',
      async (name) => {
        const headers = Object.entries(signed(randomUUID()));
        const signedOne = headers.find(([k]) => k.toLowerCase() === name.toLowerCase());
        const again: Array<[string, string]> = signedOne
          ? [[name, signedOne[1]]]
          : [
              [name, 'key-0123456789abcdef'],
              [name, 'key-0123456789abcdef'],
            ];
        const answer = await send([...headers, ...again]);
        expectPipelineError(answer, 400, 'validation_error');
      },
    );
  });
});
