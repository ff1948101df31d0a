// The signed curl command of one request (pure: the caller supplies the clock, the nonce and the
// signing window). It signs exactly what curl will send: the same path and raw query, the same
// body bytes, and `--path-as-is` so curl does not rewrite the path it was given.
import { HEADERS, signedHeaders } from '../protocol/index.ts';
import { shellCommand } from './shell-quote.ts';

export interface CurlInput {
  method: string;
  /** The absolute URL, as `new URL()` normalised it (the signer and curl see the same one). */
  url: URL;
  body: string | undefined;
  keyId: string;
  secret: string;
  nowMs: number;
  nonce: string;
  idempotencyKey: string | undefined;
}

export interface SignedCurl {
  command: string;
  /** Unix seconds of X-Service-Timestamp. */
  timestamp: number;
}

export function signedCurl(input: CurlInput): SignedCurl {
  const timestamp = Math.floor(input.nowMs / 1000);
  const method = input.method.toUpperCase();
  const headers = signedHeaders({
    secret: input.secret,
    keyId: input.keyId,
    method,
    path: input.url.pathname,
    query: input.url.search.slice(1),
    timestamp: String(timestamp),
    nonce: input.nonce,
    body: input.body,
    idempotencyKey: input.idempotencyKey,
  });
  // HEAD with -X would make curl wait for a body that never comes; --head sends HEAD properly.
  const lines: string[][] = [
    ['curl', '-sS', '-i', '--path-as-is', ...(method === 'HEAD' ? ['--head'] : ['-X', method])],
  ];
  const order = [HEADERS.keyId, HEADERS.timestamp, HEADERS.nonce, HEADERS.signature, HEADERS.idempotencyKey];
  for (const name of order) if (headers[name] !== undefined) lines.push(['-H', `${name}: ${headers[name]}`]);
  if (input.body !== undefined) {
    lines.push(['-H', 'Content-Type: application/json']);
    lines.push(['--data-binary', input.body]);
  }
  lines.push([input.url.href]);
  return { command: shellCommand(lines), timestamp };
}
