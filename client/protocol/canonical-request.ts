import { EMPTY_BODY_SHA256, bodySha256Hex, type RawBody } from './body-hash.ts';
import { canonicalQuery } from './canonical-query.ts';
import { ProtocolError } from './errors.ts';
import { assertWellFormed } from './unicode.ts';

/** The parts of a request that the v1 signature covers. */
export interface CanonicalRequest {
  /** HTTP method, any case; it is uppercased. */
  readonly method: string;
  /** Raw path as requested, starting with `/`, without the query; percent-escapes are kept as they are. */
  readonly path: string;
  /** Raw query string without the leading `?`; empty or absent when there is none. */
  readonly query?: string | undefined;
  /** The X-Service-Timestamp header value, exactly as sent. */
  readonly timestamp: string;
  /** The X-Service-Nonce header value, exactly as sent. */
  readonly nonce: string;
  /** The raw body bytes as sent; ignored for GET and HEAD. */
  readonly body?: RawBody | null | undefined;
}

/** A request target split into the PATH line and the raw query. */
export interface RequestTarget {
  readonly path: string;
  readonly query: string;
}

// RFC 9110 token: keeps a method from smuggling a line break or non-ASCII text into line 1.
const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const LINE_BREAK = /[\r\n]/;

function invalid(path: string, message: string): ProtocolError {
  return new ProtocolError('validation_error', `Cannot build the canonical string: ${path} ${message}`, [
    { path, message },
  ]);
}

// ASCII-only, so that every language uppercases a method the same way (`toUpperCase` would
// also map non-ASCII letters, which a token cannot contain anyway).
function asciiUpperCase(value: string): string {
  return value.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x20));
}

/**
 * Splits an origin-form request target (`/path?query`, e.g. Node's `req.url`) at the first `?`.
 * The query keeps its raw form, which is what canonicalQuery expects.
 *
 * Only the origin form has a PATH line (RFC 9112 §3.2.1): an absolute-form target
 * (`http://host/path`) or one with a fragment (`#`, which no client sends) is refused with
 * `validation_error`, whatever the key id, so no signer and no verifier ever meets one.
 */
export function splitRequestTarget(target: string): RequestTarget {
  if (!target.startsWith('/') || target.includes('#')) {
    const problem = target.startsWith('/')
      ? 'must not contain a fragment ("#")'
      : 'must be in origin form (a path starting with "/", then an optional query)';
    throw new ProtocolError('validation_error', `The request target ${problem}`, [{ path: '/path', message: problem }]);
  }
  const q = target.indexOf('?');
  return q < 0 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

/**
 * The six lines that are signed, joined by `\n`:
 * METHOD, PATH, QUERY_STRING, TIMESTAMP, NONCE, BODY_SHA256_HEX.
 * Throws `validation_error` when a line could not be written unambiguously (a malformed query
 * escape, a line break in a single-line field, a path that is not a path).
 */
export function canonicalString(request: CanonicalRequest): string {
  const { method, path, timestamp, nonce } = request;
  if (!METHOD_TOKEN.test(method)) throw invalid('/method', 'must be an HTTP token');
  if (!path.startsWith('/')) throw invalid('/path', 'must start with "/"');
  if (path.includes('?') || path.includes('#')) throw invalid('/path', 'must not contain the query or a fragment');
  for (const [name, value] of [
    ['/path', path],
    ['/headers/x-service-timestamp', timestamp],
    ['/headers/x-service-nonce', nonce],
  ] as const) {
    if (LINE_BREAK.test(value)) throw invalid(name, 'must not contain a line break');
    assertWellFormed(value, name);
  }

  const upperMethod = asciiUpperCase(method);
  const { body } = request;
  // The seed fixes GET and HEAD to the empty-body hash whatever is attached, so a stray body on
  // a read never changes its signature.
  const bodyHash =
    upperMethod === 'GET' || upperMethod === 'HEAD' || body === undefined || body === null
      ? EMPTY_BODY_SHA256
      : bodySha256Hex(body);

  return [upperMethod, path, canonicalQuery(request.query ?? ''), timestamp, nonce, bodyHash].join('\n');
}
