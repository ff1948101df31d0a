// Checks of the HTTP message itself, made in the app's pipeline so that their answers carry what
// every answer does (request id, security headers, a log line, the `Error` body): each
// document's `x-protocol-refusals`. Node's parser takes `HTTP/2.0` in a request line and would
// have the answer written as 1.1; Node's own Host and Expect answers are bare status lines, so
// the server hands those requests here instead (protocol-refusals.ts, requireHostHeader: false).
//
// - refuseUnsupportedMessage, before the Host check: a major version other than 1 is 505
//   `http_version_not_supported`; an HTTP/1.1 request without Host is 400 (RFC 9112 §3.2).
// - refuseUnknownTransferCoding, after the Host and request-target checks: a transfer coding
//   other than chunked is 501 `transfer_coding_not_implemented` (RFC 9112 §6.1).
// - answerExpectation, after the Host and request-target checks: an `Expect` other than
//   `100-continue` is 417 `expectation_failed`; `100-continue` with a Content-Length over the
//   surface's `x-body-limits` `max-bytes` is 413 at once, before the client sends the body;
//   otherwise `100 Continue` is written and the request goes on (RFC 9110 §10.1.1).
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { ApiContract } from '../contract/index.ts';
import { ApiError } from './errors.ts';

/** Requests Node held back for `Expect: 100-continue` (its 'checkContinue' event): nothing sent yet. */
const awaitingContinue = new WeakSet<IncomingMessage>();
/** Requests with an `Expect` other than 100-continue (Node's 'checkExpectation' event). */
const unmetExpectation = new WeakSet<IncomingMessage>();

export function markAwaitingContinue(req: IncomingMessage): void {
  awaitingContinue.add(req);
}

export function markUnmetExpectation(req: IncomingMessage): void {
  unmetExpectation.add(req);
}

// The answer is the last on its connection: a client that spoke another version, or sent no
// Host, is not one whose next request on the connection can be trusted to be framed as ours.
const CLOSE = { Connection: 'close' };

export function refuseUnsupportedMessage(): RequestHandler {
  return (req, _res, next) => {
    if (req.httpVersionMajor !== 1)
      return next(
        new ApiError(
          'http_version_not_supported',
          `HTTP/${req.httpVersionMajor}.${req.httpVersionMinor} is not supported: send the request as HTTP/1.1`,
          undefined,
          CLOSE,
        ),
      );
    if (req.httpVersionMinor >= 1 && req.headers.host === undefined)
      return next(
        new ApiError(
          'validation_error',
          'An HTTP/1.1 request must carry a Host header (RFC 9112 §3.2)',
          [{ path: '/headers/host', message: 'is required' }],
          CLOSE,
        ),
      );
    next();
  };
}

/**
 * The transfer codings of a request's `Transfer-Encoding` (Node joins repeated fields with ", "),
 * lower-cased, empty list elements dropped (RFC 9110 §5.6.1).
 */
function transferCodings(value: string): string[] {
  return value
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '');
}

/**
 * `Transfer-Encoding` naming a coding other than chunked is 501 `transfer_coding_not_implemented`
 * (RFC 9112 §6.1), before the body is read: Node's parser decodes only chunked and reads the
 * bytes of any other coding as if they were plain, where a peer that applies the coding reads
 * another body. Only requests whose last coding is chunked get here (the parser refuses the rest
 * as ambiguously framed, RFC 9112 §6.3); the body is left unread, so the connection closes.
 */
export function refuseUnknownTransferCoding(): RequestHandler {
  return (req, _res, next) => {
    const value = req.headers['transfer-encoding'];
    if (value === undefined) return next();
    const unknown = transferCodings(value).filter((c) => c !== 'chunked');
    if (unknown.length === 0) return next();
    return next(
      new ApiError(
        'transfer_coding_not_implemented',
        `The transfer coding ${JSON.stringify(unknown[0]?.slice(0, 100))} is not implemented: send the body with Content-Length, or chunked alone (RFC 9112 §6.1)`,
        undefined,
        CLOSE,
      ),
    );
  };
}

/** `x-body-limits` `max-bytes` of a document; throws at start-up when it is missing or malformed. */
export function maxBodyBytesOf(contract: ApiContract): number {
  const max = contract.root<{ 'max-bytes'?: unknown }>('x-body-limits')?.['max-bytes'];
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1)
    throw new Error(`x-body-limits.max-bytes of the ${contract.api} document must be a positive integer`);
  return max;
}

/** The body limit of the surface a path belongs to: the partner and operator prefixes, else the public document. */
export function bodyLimitOfPath(contracts: {
  partner: ApiContract;
  admin: ApiContract;
  public: ApiContract;
}): (path: string) => number {
  const partner = maxBodyBytesOf(contracts.partner);
  const admin = maxBodyBytesOf(contracts.admin);
  const fallback = maxBodyBytesOf(contracts.public);
  return (path) => (path.startsWith('/api/partner/') ? partner : path.startsWith('/api/admin/') ? admin : fallback);
}

export function answerExpectation(maxBytesOf: (path: string) => number): RequestHandler {
  return (req, res, next) => {
    if (unmetExpectation.has(req)) {
      const expect = req.get('expect') ?? '';
      return next(
        new ApiError(
          'expectation_failed',
          `The expectation ${JSON.stringify(expect.slice(0, 100))} cannot be met: only 100-continue is (RFC 9110 §10.1.1)`,
          [{ path: '/headers/expect', message: 'must be 100-continue' }],
          CLOSE,
        ),
      );
    }
    if (!awaitingContinue.has(req)) return next();
    const declared = Number(req.headers['content-length']);
    const max = maxBytesOf(req.path);
    // Chunked bodies declare no length: they are cut off at the limit while they are read.
    if (declared > max)
      return next(
        new ApiError(
          'payload_too_large',
          `Request body exceeds the limit of ${max} bytes (Content-Length: ${declared}); refused before it was sent`,
          undefined,
          CLOSE,
        ),
      );
    res.writeContinue();
    next();
  };
}
