// The requests Node's HTTP server would answer by itself, below the app (each document's
// `x-protocol-refusals`). Left to Node, what its parser refuses (a lowercase method, header
// fields over 16 KiB, two Content-Lengths, a request that did not arrive in time) gets a bare
// status line, and CONNECT a closed connection: no `Error` body, no request id, no log line.
// Here:
// - 'clientError' (the parser's refusals) and 'connect' (CONNECT) are answered on the socket with
//   a complete HTTP/1.1 message: the `Error` body, a fresh X-Request-Id, the headers every answer
//   carries (`x-security-headers`), Connection: close, and one request line in the log. A refusal
//   that strikes while the app holds the request (its body stalled) is answered through the app's
//   own response, so that request keeps its one log line and its id.
// - 'checkContinue' and 'checkExpectation' hand a request with `Expect` to the app like any other,
//   instead of Node's at-once 100 Continue or bare 417: message-checks.ts decides there, after the
//   Host check, between 417, an early 413 and 100 Continue.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, maxHeaderSize, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiContract, Contract } from '../contract/index.ts';
import type { Logger } from '../ops/logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import { STATUS_OF, type ErrorCode } from './errors.ts';
import { markAwaitingContinue, markUnmetExpectation } from './message-checks.ts';
import { securityPolicy } from './security-headers.ts';

const REFUSALS = [
  'malformed-message',
  'header-fields-too-large',
  'request-timeout',
  'http-version',
  'transfer-coding',
  'connect',
  'expectation',
  'continue',
] as const;
type RefusalName = (typeof REFUSALS)[number];
type Refusal = { status: number; code: ErrorCode };

/** Each refusal's status and code, from the document's `x-protocol-refusals`; throws at start-up when malformed. */
export function protocolRefusalsOf(contract: ApiContract): Record<RefusalName, Refusal> {
  const root = contract.root<Record<string, unknown>>('x-protocol-refusals');
  if (!root) throw new Error(`the ${contract.api} document has no x-protocol-refusals`);
  const out = {} as Record<RefusalName, Refusal>;
  for (const name of REFUSALS) {
    const entry = root[name] as { status?: unknown; code?: unknown } | undefined;
    const code = entry?.code as ErrorCode;
    if (typeof entry?.status !== 'number' || STATUS_OF[code] !== entry.status)
      throw new Error(`x-protocol-refusals.${name} must name an ErrorCode and that code's status`);
    out[name] = { status: entry.status, code };
  }
  return out;
}

/**
 * What a request line the parser refused for its version is refused as (`x-protocol-refusals`):
 * 505 only for a well-formed HTTP-version (`HTTP/` DIGIT `.` DIGIT, RFC 9112 §2.3) whose major
 * version is not 1. llhttp refuses `HTTP/1.2` (which RFC 9110 §6.2 would have read as 1.1), a
 * malformed version and a request line ended by a bare LF all alike; each of those is a 400.
 * `rawPacket` holds the bytes the parser was given, the request line first.
 */
export function versionRefusal(rawPacket: Buffer | undefined): { name: RefusalName; message: string } {
  const head = rawPacket?.subarray(0, 8192).toString('latin1') ?? '';
  const lf = head.indexOf('\n');
  const line = lf < 0 ? head : head.slice(0, lf);
  if (lf >= 0 && !line.endsWith('\r'))
    return {
      name: 'malformed-message',
      message: 'The request line ends in a bare LF: end every line of the request with CRLF (RFC 9112 §2.2)',
    };
  const version = / (HTTP\/(\d)\.(\d))\r?$/.exec(line);
  if (version && version[2] !== '1')
    return {
      name: 'http-version',
      message: `${version[1]} is not supported: send the request as HTTP/1.1`,
    };
  if (version)
    return {
      name: 'malformed-message',
      message: `${version[1]} is not a version this server reads: it serves HTTP/1.0 and HTTP/1.1; send the request as HTTP/1.1`,
    };
  return {
    name: 'malformed-message',
    message: 'The request line does not end in a well-formed HTTP version (HTTP/1.1; RFC 9112 §2.3)',
  };
}

/** What a parser error is refused as, and the words that say why. Never the parser's own text. */
function parserRefusal(
  err: Error & { code?: string; rawPacket?: Buffer },
  server: Server,
): { name: RefusalName; message: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        name: 'header-fields-too-large',
        message: `The request line and header fields are larger than ${maxHeaderSize} bytes`,
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        name: 'request-timeout',
        message: `The request did not arrive in time: its header fields within ${server.headersTimeout / 1000} s, all of it within ${server.requestTimeout / 1000} s`,
      };
    case 'HPE_INVALID_VERSION':
      return versionRefusal(err.rawPacket);
    case 'HPE_CR_EXPECTED':
    case 'HPE_LF_EXPECTED':
      return {
        name: 'malformed-message',
        message:
          'A header line ends in a bare LF or a lone CR: end every line of the request with CRLF (RFC 9112 §2.2)',
      };
    case 'HPE_INVALID_METHOD':
      return {
        name: 'malformed-message',
        message: 'The request method is not one this server reads (methods are case-sensitive: GET, not get)',
      };
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return {
        name: 'malformed-message',
        message:
          'The body is framed ambiguously: Content-Length repeated, malformed or sent with Transfer-Encoding (RFC 9112 §6.3)',
      };
    default:
      return { name: 'malformed-message', message: 'The request line or a header field is malformed (RFC 9112)' };
  }
}

/** A response Node already created for this socket's request, the one the app holds. */
function inFlight(socket: Duplex): ServerResponse | undefined {
  // Node keeps it there (the field its own default clientError answer checks).
  return (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

export interface ProtocolRefusalDeps {
  contract: Contract;
  /** PUBLIC_BASE_URL: an https deployment's answers carry HSTS (`x-security-headers`). */
  publicBaseUrl?: string | undefined;
  logger: Logger;
  metrics?: Metrics | undefined;
}

/** Takes over the answers Node would give by itself (see the top of this file). */
export function answerProtocolRefusals(server: Server, deps: ProtocolRefusalDeps): void {
  const refusals = protocolRefusalsOf(deps.contract.public);
  const policy = securityPolicy(deps.contract.public);
  const everyAnswer = [...policy.everyAnswer, ...(deps.publicBaseUrl?.startsWith('https://') ? policy.httpsOnly : [])];

  function logged(line: Record<string, unknown>, status: number): void {
    deps.metrics?.request({ operationId: 'unmatched', status, seconds: 0 });
    if (deps.logger.isLevelEnabled('info')) deps.logger.info({ operation: 'unmatched', ...line }, 'request');
  }

  /** Writes a complete answer onto a socket no response owns, then closes it. */
  function answerOnSocket(socket: Duplex, refusal: Refusal, message: string, extra: Record<string, string>): string {
    const id = `req_${randomUUID()}`;
    const body = JSON.stringify({ code: refusal.code, message, request_id: id });
    const headers: Array<[string, string]> = [
      ['Content-Type', 'application/json; charset=utf-8'],
      ['Content-Length', String(Buffer.byteLength(body))],
      ['X-Request-Id', id],
      ...everyAnswer,
      ...Object.entries(extra),
      ['Date', new Date().toUTCString()],
      ['Connection', 'close'],
    ];
    const head = `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
    // Once the answer is handed to the kernel the socket goes, whatever the client still sends.
    socket.end(head + body, () => socket.destroy());
    return id;
  }

  server.on('clientError', (err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex) => {
    // A reset, or an end of the stream in the middle of a request, has no one left to answer: the
    // request the app holds (if any) is then logged as aborted (499, server/ops/access-log.ts).
    if (err.code === 'ECONNRESET' || err.code === 'HPE_INVALID_EOF_STATE' || !socket.writable)
      return void socket.destroy();
    const { name, message } = parserRefusal(err, server);
    const refusal = refusals[name];
    const res = inFlight(socket);
    if (res) {
      // Part of the answer already left: a second status line would corrupt it.
      if (res.headersSent) return void socket.destroy();
      // The app holds this request (its body stalled): answered through its response, whose
      // request id, headers and log line (server/ops/access-log.ts) it already has.
      const locals = (res as ServerResponse & { locals?: { errorCode?: string } }).locals;
      if (locals) locals.errorCode = refusal.code;
      const id = res.getHeader('x-request-id');
      const body = JSON.stringify({
        code: refusal.code,
        message,
        ...(typeof id === 'string' ? { request_id: id } : {}),
      });
      res.writeHead(refusal.status, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
        Connection: 'close',
      });
      res.end(body, () => socket.destroy());
      return;
    }
    const id = answerOnSocket(socket, refusal, message, {});
    logged({ req_id: id, status: refusal.status, code: refusal.code, parser: err.code }, refusal.status);
  });

  server.on('connect', (req: { method?: string }, socket: Duplex) => {
    const refusal = refusals.connect;
    // An empty Allow: no method takes an authority-form target here (RFC 9110 §15.5.6, §9.3.6).
    const id = answerOnSocket(socket, refusal, 'CONNECT is not supported: this server is not a proxy', { Allow: '' });
    logged({ req_id: id, method: req.method, status: refusal.status, code: refusal.code }, refusal.status);
  });

  server.on('checkContinue', (req, res) => {
    markAwaitingContinue(req);
    server.emit('request', req, res);
  });

  server.on('checkExpectation', (req, res) => {
    markUnmetExpectation(req);
    server.emit('request', req, res);
  });
}
