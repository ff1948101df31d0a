// Requests that neither global fetch nor node:http will send as written: a header repeated (Host
// included), a target in absolute form or malformed (`http://[`), and a HEAD whose answer is read
// byte for byte (a client library drops a body sent after a HEAD answer; the kit must see it).
// The exact bytes go out on a connection of their own (net, or tls for an https deployment) with
// `Connection: close`, and the answer is read until the deployment closes it.
//
// These exchanges are attached to the check's failure (and its report) but not added to the
// run's record: the families that review every answer (schema, headers, CORS) and the replays
// of a failure bundle, which sends requests through fetch, would misread requests no client
// library can make.
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { CheckFailure, type Context } from './context.ts';
import type { Exchange } from './http.ts';
import { patienceMs } from './pacing.ts';

export interface RawRequest {
  method: string;
  /** The request target exactly as sent: `/path?q`, `http://host/path`, `*`, `http://[`. */
  target: string;
  /** Header lines in order; a name may repeat. `Host` (the base URL's) is added first unless one is given. */
  headers?: Array<[string, string]>;
  body?: string;
  /** The source address (a client of the run's pool on loopback). */
  localAddress?: string | undefined;
  /** The request line's version (`HTTP/1.1` unless given): `HTTP/2.0` and `HTTP/1.0` are refused and served (`x-protocol-refusals`). */
  version?: string;
  /**
   * Stops reading once what arrived satisfies it, without waiting for the close: a check that
   * must not wait out an answer it already knows is wrong (a `100 Continue` inviting a body the
   * check will not send).
   */
  until?: (received: Buffer) => boolean;
}

export interface RawAnswer {
  status: number;
  /** Header fields in order, names lowercased. */
  headers: Array<[string, string]>;
  /** Every byte after the header block, as received (chunked framing removed). */
  body: Buffer;
  /** The deployment closed the connection (else the read stopped at the wait's end). */
  closed: boolean;
  /** For failure reports. */
  exchange: Exchange;
}

/** The first value of a header of the answer. */
export const headerValue = (a: RawAnswer, name: string): string | undefined =>
  a.headers.find(([n]) => n === name.toLowerCase())?.[1];

/**
 * Sends `request` as written and reads the answer. The wait for the deployment to finish and
 * close is the contract's allowance of the kit (10 s) plus 20 of the run's slow round trips.
 */
export async function sendRaw(ctx: Context, request: RawRequest): Promise<RawAnswer> {
  const base = new URL(ctx.http.baseUrl);
  const headers = request.headers ?? [];
  const lines = [
    `${request.method} ${request.target} ${request.version ?? 'HTTP/1.1'}`,
    ...(headers.some(([n]) => n.toLowerCase() === 'host') ? [] : [`Host: ${base.host}`]),
    ...headers.map(([n, v]) => `${n}: ${v}`),
    'Connection: close',
    ...(request.body !== undefined ? [`Content-Length: ${Buffer.byteLength(request.body)}`] : []),
  ];
  const bytes = Buffer.concat([
    Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
    Buffer.from(request.body ?? ''),
  ]);
  const waitMs = patienceMs(ctx, 10_000, 20);
  const started = performance.now();
  const startedAt = Date.now();
  const { received, closed } = await exchangeBytes(base, bytes, waitMs, request.localAddress, request.until);
  const answer = parseAnswer(received, request.method === 'HEAD');
  if (!answer)
    throw new CheckFailure(
      `${request.method} ${request.target}: the deployment answered no HTTP status line within ${Math.round(waitMs / 1000)} s (${received.length} bytes: ${JSON.stringify(received.toString('latin1').slice(0, 120))})`,
    );
  const scope = ctx.http.current();
  const joined = (list: Array<[string, string]>) => {
    const out: Record<string, string> = {};
    for (const [n, v] of list) out[n.toLowerCase()] = n.toLowerCase() in out ? `${out[n.toLowerCase()]}, ${v}` : v;
    return out;
  };
  const exchange: Exchange = {
    family: scope?.family ?? '',
    check: scope?.check ?? '',
    checkId: scope?.checkId ?? '',
    startedAt,
    method: request.method,
    url: request.target.startsWith('/') ? `${ctx.http.baseUrl}${request.target}` : request.target,
    requestHeaders: joined(headers),
    requestBody: request.body ?? '',
    status: answer.status,
    responseHeaders: joined(answer.headers),
    responseBody: answer.body.toString('utf8'),
    ms: Math.round(performance.now() - started),
    deliberate: true,
    ...(request.localAddress ? { client: request.localAddress } : {}),
  };
  return { ...answer, closed, exchange };
}

/** Writes `bytes` and reads until the peer closes, `waitMs` passes or `until` holds. */
function exchangeBytes(
  base: URL,
  bytes: Buffer,
  waitMs: number,
  localAddress: string | undefined,
  until?: (received: Buffer) => boolean,
): Promise<{ received: Buffer; closed: boolean }> {
  const port = Number(base.port || (base.protocol === 'https:' ? 443 : 80));
  const host = base.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket: Socket =
      base.protocol === 'https:'
        ? tlsConnect({
            host,
            port,
            servername: /^[\d.]+$|:/.test(host) ? undefined : host,
            ...(localAddress ? { localAddress } : {}),
          })
        : netConnect({ host, port, ...(localAddress ? { localAddress } : {}) });
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ received: Buffer.concat(chunks), closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on(base.protocol === 'https:' ? 'secureConnect' : 'connect', () => socket.write(bytes));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (until?.(Buffer.concat(chunks))) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (err) => {
      // A reset after a complete answer is a close; before any byte it is the deployment's failure.
      if (chunks.length > 0) finish(true);
      else if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(new CheckFailure(`the connection to ${base.host} failed: ${err.message}`));
      }
    });
  });
}

/** The status, header fields and body of an answer as received; undefined without a status line. */
export function parseAnswer(
  received: Buffer,
  head: boolean,
): { status: number; headers: Array<[string, string]>; body: Buffer } | undefined {
  const end = received.indexOf('\r\n\r\n');
  const block = received.subarray(0, end < 0 ? received.length : end).toString('latin1');
  const [statusLine = '', ...fields] = block.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!m) return undefined;
  const headers: Array<[string, string]> = [];
  for (const line of fields) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  let body = end < 0 ? Buffer.alloc(0) : received.subarray(end + 4);
  const chunked = headers.some(([n, v]) => n === 'transfer-encoding' && /chunked/i.test(v));
  if (chunked && !head) body = dechunk(body);
  return { status: Number(m[1]), headers, body };
}

function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}
