// Requests refused before any operation is looked at (`x-protocol-refusals`): what Node's HTTP/1.1
// parser refuses, CONNECT, another HTTP major version, a missing Host, `Expect`, and requests that
// do not arrive in time. Node answers these itself with a bare status line (or, for CONNECT, none
// at all); each must instead be a complete answer in the contract's shape: the `Error` body,
// `X-Request-Id` equal to its `request_id`, `X-Content-Type-Options`, `Connection: close`, and
// one log line. Written byte for byte on a socket: no HTTP client sends these.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/ops/logger.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { measureStartup } from '../support/startup.ts';

const lines: Array<Record<string, unknown>> = [];
const logger = createLogger({
  level: 'info',
  destination: { write: (text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>) },
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything after this answer's body. */
  rest: string;
}

/** The first complete answer in `text` (status line, headers, a Content-Length body); undefined until it is all there. */
function firstAnswer(text: string): Answer | undefined {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return undefined;
  const [statusLine = '', ...fields] = text.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of fields) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const bytes = Buffer.from(text.slice(split + 4), 'utf8');
  if (bytes.length < length) return undefined;
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
    headers,
    body: bytes.subarray(0, length).toString('utf8'),
    rest: bytes.subarray(length).toString('utf8'),
  };
}

/** A connection whose bytes the test writes itself and whose answers it reads as they come. */
function open(baseUrl: string) {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  let received = '';
  let ended = false;
  const waiting: Array<() => void> = [];
  const wake = () => waiting.splice(0).forEach((w) => w());
  socket.on('data', (d: Buffer) => ((received += d.toString('utf8')), wake()));
  socket.on('close', () => ((ended = true), wake()));
  socket.on('error', () => undefined);
  return {
    write: (bytes: string) => socket.write(bytes),
    /** Resolves with what has arrived once `done` holds of it, or once the server closed the connection. */
    until(done: (text: string) => boolean): Promise<string> {
      return new Promise((resolve) => {
        const check = () => (done(received) || ended ? resolve(received) : waiting.push(check));
        check();
      });
    },
    closed: () => new Promise<void>((resolve) => (ended ? resolve() : socket.once('close', () => resolve()))),
    destroy: () => socket.destroy(),
  };
}

/** Sends `bytes` and reads until the server closes the connection. */
async function exchange(baseUrl: string, bytes: string): Promise<Answer> {
  const c = open(baseUrl);
  c.write(bytes);
  const text = await c.until(() => false);
  const answer = firstAnswer(text);
  if (!answer) throw new Error(`no complete answer: ${JSON.stringify(text.slice(0, 300))}`);
  return answer;
}

function expectRefusal(answer: Answer, status: number, code: string): { request_id: string; message: string } {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { code: string; message: string; request_id: string };
  expect(body.code).toBe(code);
  expect(body.message.length).toBeGreaterThan(0);
  expect(answer.headers['x-request-id']).toBeTruthy();
  expect(body.request_id).toBe(answer.headers['x-request-id']);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers.connection).toBe('close');
  return body;
}

/** The one log line of a request id (the observer writes it when the response closes). */
async function logLineOf(id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100 && !lines.some((l) => l.req_id === id); i++) await new Promise((r) => setImmediate(r));
  const found = lines.filter((l) => l.req_id === id);
  expect(found, `log lines of ${id}`).toHaveLength(1);
  return found[0] as Record<string, unknown>;
}

describe('requests refused before any operation (x-protocol-refusals)', () => {
  let h: Harness;
  let host: string;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false, logger });
    host = new URL(h.baseUrl).host;
  });
  afterAll(() => h.close());

  describe("what Node's parser refuses", () => {
    const big = 'x'.repeat(17 * 1024);
    it.each([
      ['a lowercase method', () => `get /api/v1 HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 400, 'validation_error'],
      ['a malformed target', () => `GET http:/api/v1 HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 400, 'validation_error'],
      [
        'Content-Length twice',
        () => `POST /api/domain/search HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}`,
        400,
        'validation_error',
      ],
      [
        'Content-Length beside Transfer-Encoding',
        () =>
          `POST /api/domain/search HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        400,
        'validation_error',
      ],
      [
        'a DEL byte in a header value',
        () => `GET /api/v1 HTTP/1.1\r\nHost: ${host}\r\nX-A: a\x7fb\r\n\r\n`,
        400,
        'validation_error',
      ],
      [
        'header fields over 16 KiB',
        () => `GET /api/v1 HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${big}\r\n\r\n`,
        431,
        'header_fields_too_large',
      ],
    ])('answers %s in the Error shape, logged once', async (_name, request, status, code) => {
      const answer = await exchange(h.baseUrl, request());
      const body = expectRefusal(answer, status, code);
      // The parser's own words (and the bytes it choked on) are never echoed.
      expect(body.message).not.toMatch(/HPE_|Parse Error/);
      const line = await logLineOf(body.request_id);
      expect(line).toMatchObject({ status, code, operation: 'unmatched' });
    });
  });

  it('answers CONNECT with 405 method_not_allowed and an empty Allow, where Node closed the connection silently', async () => {
    const answer = await exchange(h.baseUrl, `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    const body = expectRefusal(answer, 405, 'method_not_allowed');
    expect(answer.headers.allow).toBe('');
    expect(await logLineOf(body.request_id)).toMatchObject({ method: 'CONNECT', status: 405 });
  });

  it('answers an HTTP/1.1 request without Host with 400 through the pipeline, and still serves HTTP/1.0 without one', async () => {
    const answer = await exchange(h.baseUrl, 'GET /api/v1 HTTP/1.1\r\n\r\n');
    const body = expectRefusal(answer, 400, 'validation_error');
    expect(body.message).toMatch(/Host/);
    expect(await logLineOf(body.request_id)).toMatchObject({ method: 'GET', status: 400 });
    const old = await exchange(h.baseUrl, 'GET /api/v1 HTTP/1.0\r\n\r\n');
    expect(old.status, old.body).toBe(200);
  });

  it.each([
    ['HTTP/2.0', `GET /api/v1 HTTP/2.0\r\nHost: HOST\r\n\r\n`],
    ['HTTP/3.0', `GET /api/v1 HTTP/3.0\r\nHost: HOST\r\n\r\n`],
    ['HTTP/0.9 (no version)', 'GET /api/v1\r\n\r\n'],
  ])('answers a request line naming %s with 505 http_version_not_supported, logged as a refusal', async (_v, bytes) => {
    const answer = await exchange(h.baseUrl, bytes.replace('HOST', host));
    const body = expectRefusal(answer, 505, 'http_version_not_supported');
    // The client's doing, not a failure of the server: one request line at info (30), like the
    // 4xx refusals, and no error-level `request_failed` line with a stack (README, Logs).
    expect(await logLineOf(body.request_id)).toMatchObject({ status: 505, level: 30 });
    expect(lines.filter((l) => l.event === 'request_failed' || (l.level as number) >= 50)).toEqual([]);
  });

  // Only another major version is a 505; the rest of what llhttp refuses as a version is a 400
  // that says what is wrong (RFC 9112 §2.2, §2.3; RFC 9110 §6.2).
  it.each([
    ['HTTP/1.2', `GET /api/v1 HTTP/1.2\r\nHost: HOST\r\n\r\n`, /HTTP\/1\.2 is not a version this server reads/],
    ['HTTP/1.9', `GET /api/v1 HTTP/1.9\r\nHost: HOST\r\n\r\n`, /HTTP\/1\.9 is not a version/],
    ['HTTP/1.x', `GET /api/v1 HTTP/1.x\r\nHost: HOST\r\n\r\n`, /well-formed HTTP version/],
    ['HTTP/11.1', `GET /api/v1 HTTP/11.1\r\nHost: HOST\r\n\r\n`, /well-formed HTTP version/],
    ['bare LF line endings', `GET /api/v1 HTTP/1.1\nHost: HOST\n\n`, /bare LF/],
    ['a bare LF after a header', `GET /api/v1 HTTP/1.1\r\nHost: HOST\nX-A: b\r\n\r\n`, /bare LF/],
  ])('answers %s with 400 validation_error, not 505', async (_name, bytes, words) => {
    const answer = await exchange(h.baseUrl, bytes.replace('HOST', host));
    const body = expectRefusal(answer, 400, 'validation_error');
    expect(body.message).toMatch(words);
    expect(await logLineOf(body.request_id)).toMatchObject({ status: 400, level: 30 });
  });

  describe('Transfer-Encoding (x-protocol-refusals transfer-coding)', () => {
    const search = JSON.stringify({ q: 'coffee.com' });
    const chunked = `${search.length.toString(16)}\r\n${search}\r\n0\r\n\r\n`;
    const post = (fields: string) =>
      `POST /api/domain/search HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\n${fields}Connection: close\r\n\r\n${chunked}`;

    it.each([
      ['gzip, chunked', 'Transfer-Encoding: gzip, chunked\r\n', 'gzip'],
      ['x-custom, chunked', 'Transfer-Encoding: x-custom, chunked\r\n', 'x-custom'],
      ['Deflate in a field of its own', 'Transfer-Encoding: Deflate\r\nTransfer-Encoding: chunked\r\n', 'deflate'],
    ])(
      'answers %s with 501 transfer_coding_not_implemented, not the body read as plain',
      async (_n, fields, coding) => {
        const answer = await exchange(h.baseUrl, post(fields));
        const body = expectRefusal(answer, 501, 'transfer_coding_not_implemented');
        expect(body.message).toContain(`"${coding}"`);
        // The client's doing: a request line at info, no request_failed.
        expect(await logLineOf(body.request_id)).toMatchObject({ status: 501, level: 30 });
        expect(lines.filter((l) => l.event === 'request_failed')).toEqual([]);
      },
    );

    it('reads chunked alone (any case, empty list elements allowed) as before', async () => {
      const answer = await exchange(h.baseUrl, post('Transfer-Encoding: , Chunked\r\n'));
      expect(answer.status, answer.body).toBe(200);
    });
  });

  describe('Expect', () => {
    const search = JSON.stringify({ q: 'coffee.com' });
    const head = (expectation: string, length: number, hostHeader = host) =>
      `POST /api/domain/search HTTP/1.1\r\nHost: ${hostHeader}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: ${expectation}\r\n\r\n`;

    it('answers an expectation other than 100-continue with 417 expectation_failed', async () => {
      const answer = await exchange(h.baseUrl, head('something-else', search.length) + search);
      const body = expectRefusal(answer, 417, 'expectation_failed');
      expect(await logLineOf(body.request_id)).toMatchObject({ method: 'POST', status: 417 });
    });

    it('refuses a declared body over max-bytes with 413 before it is sent, never 100 Continue', async () => {
      const c = open(h.baseUrl);
      c.write(head('100-continue', 50_000_000));
      // The body is never sent: a final answer must come without it.
      const text = await c.until((t) => firstAnswer(t) !== undefined);
      expect(text).not.toMatch(/^HTTP\/1\.1 100/);
      const answer = firstAnswer(text);
      expect(answer, JSON.stringify(text.slice(0, 200))).toBeDefined();
      const body = expectRefusal(answer as Answer, 413, 'payload_too_large');
      await c.closed();
      expect(await logLineOf(body.request_id)).toMatchObject({ status: 413 });
    });

    it('sends 100 Continue for a body within the limit, then answers the request', async () => {
      const c = open(h.baseUrl);
      c.write(head('100-continue', search.length));
      const interim = await c.until((t) => t.includes('\r\n\r\n'));
      expect(interim).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
      c.write(search);
      const text = await c.until((t) => firstAnswer(t.slice(interim.length)) !== undefined);
      const answer = firstAnswer(text.slice(interim.length)) as Answer;
      expect(answer.status, answer.body).toBe(200);
      c.destroy();
    });

    it('checks the Host first: an untrusted Host gets 421 and no 100 Continue', async () => {
      const c = open(h.baseUrl);
      c.write(head('100-continue', search.length, 'evil.example'));
      const text = await c.until((t) => firstAnswer(t) !== undefined);
      expect(firstAnswer(text)?.status).toBe(421);
      c.destroy();
    });
  });
});

// The limits of the timeout tests' server, from a start-up of node measured now: far longer than
// one write on loopback takes to arrive, however busy the machine, and short enough for a test.
const timing = await measureStartup();
const HEADERS_TIMEOUT_MS = Math.max(200, timing.ms);

describe('requests that do not arrive in time (x-protocol-refusals request-timeout)', () => {
  let h: Harness;
  let host: string;
  beforeAll(async () => {
    // Short limits, checked often, so a stalled request is cut off within a test.
    h = await startHarness({
      inventorySize: 20,
      dispatch: false,
      logger,
      serverOptions: {
        headersTimeout: HEADERS_TIMEOUT_MS,
        requestTimeout: 2 * HEADERS_TIMEOUT_MS,
        connectionsCheckingInterval: Math.ceil(HEADERS_TIMEOUT_MS / 10),
      },
    });
    host = new URL(h.baseUrl).host;
  });
  afterAll(() => h.close());

  it(
    'answers headers that never end with 408 request_timeout in the Error shape',
    async () => {
      const c = open(h.baseUrl);
      c.write(`GET /api/v1 HTTP/1.1\r\nHost: ${host}\r\n`);
      const answer = firstAnswer(await c.until((t) => firstAnswer(t) !== undefined)) as Answer;
      const body = expectRefusal(answer, 408, 'request_timeout');
      await c.closed();
      expect(await logLineOf(body.request_id)).toMatchObject({ status: 408, code: 'request_timeout' });
      c.destroy();
    },
    timing.timeout(20),
  );

  it(
    'answers a body that stalls with 408 through the request it belongs to (its own id, one log line)',
    async () => {
      const c = open(h.baseUrl);
      c.write(
        `POST /api/domain/search HTTP/1.1\r\nHost: ${host}\r\nX-Request-Id: stalled-body-1\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"q":`,
      );
      const answer = firstAnswer(await c.until((t) => firstAnswer(t) !== undefined)) as Answer;
      const body = expectRefusal(answer, 408, 'request_timeout');
      expect(body.request_id).toBe('stalled-body-1');
      await c.closed();
      expect(await logLineOf('stalled-body-1')).toMatchObject({ status: 408, code: 'request_timeout' });
      c.destroy();
    },
    timing.timeout(20),
  );
});
