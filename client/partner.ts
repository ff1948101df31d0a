// The typed partner client: openapi-fetch over the generated types, with a transport that signs
// every attempt (fresh timestamp and nonce), keys POST /orders for idempotency once per logical
// call, and retries what is safe to retry.
import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '@domain-sales/contract/partner';
import { HEADERS, sign } from './protocol/index.ts';
import { defaultRetryPolicy, withRetries, type RetryOptions, type RetryPolicy } from './http/retry.ts';

type OrdersPost = paths['/api/partner/v1/orders']['post'];
/**
 * The generated paths, except that POST /orders may leave `Idempotency-Key` out: the client
 * supplies one per call (and reuses it across that call's retries).
 */
export type PartnerPaths = Omit<paths, '/api/partner/v1/orders'> & {
  '/api/partner/v1/orders': Omit<paths['/api/partner/v1/orders'], 'post'> & {
    post: Omit<OrdersPost, 'parameters'> & {
      parameters: Omit<OrdersPost['parameters'], 'header'> & { header?: Partial<OrdersPost['parameters']['header']> };
    };
  };
};
/** The error body of every 4xx/5xx answer: `code`, `message`, `request_id`, `details`. */
export type ServiceError = components['schemas']['Error'];
export type PartnerClient = Client<PartnerPaths>;

export interface PartnerClientOptions {
  /** The service base address, e.g. `https://api.example.com` (paths carry `/api/partner/v1`). */
  baseUrl: string;
  keyId: string;
  secret: string;
  fetch?: (request: Request) => Promise<Response>;
  /** Retry policy, or `false` to send each request once. */
  retry?: RetryOptions | false;
  /** Per-attempt timeout in ms. Default 30 s. */
  timeoutMs?: number;
  /** Clock in ms since the epoch (tests). */
  now?: () => number;
  /** Nonce source (tests). Default: random UUIDs. */
  nonce?: () => string;
}

/** The operations whose requests must carry an Idempotency-Key (the CLI's --curl adds one too). */
export const needsIdempotencyKey = (method: string, pathname: string) =>
  method === 'POST' && /\/api\/partner\/v1\/orders\/?$/.test(pathname);

/**
 * A fetch that signs and retries. Exported for callers that bring their own HTTP layer;
 * createPartnerClient wires it into openapi-fetch.
 */
export function createSignedFetch(
  options: Omit<PartnerClientOptions, 'baseUrl'>,
): (request: Request) => Promise<Response> {
  refuseBrowser();
  const fetchImpl = options.fetch ?? ((r: Request) => globalThis.fetch(r));
  const now = options.now ?? Date.now;
  const nonce = options.nonce ?? randomUUID;
  const policy: RetryPolicy | undefined = options.retry === false ? undefined : defaultRetryPolicy(options.retry);
  const timeoutMs = options.timeoutMs ?? 30_000;

  return async (original: Request) => {
    const method = original.method.toUpperCase();
    const url = new URL(original.url);
    // Read once: every attempt re-sends (and re-signs) these exact bytes.
    const body = new Uint8Array(await original.arrayBuffer());
    const headers = new Headers(original.headers);
    if (needsIdempotencyKey(method, url.pathname) && !headers.has(HEADERS.idempotencyKey)) {
      headers.set(HEADERS.idempotencyKey, randomUUID());
    }
    const send = () => {
      const timestamp = String(Math.floor(now() / 1000));
      const attemptNonce = nonce();
      const signed = new Headers(headers);
      signed.set(HEADERS.keyId, options.keyId);
      signed.set(HEADERS.timestamp, timestamp);
      signed.set(HEADERS.nonce, attemptNonce);
      signed.set(
        HEADERS.signature,
        sign({
          secret: options.secret,
          method,
          path: url.pathname,
          query: url.search.slice(1),
          timestamp,
          nonce: attemptNonce,
          body,
        }),
      );
      const signal = original.signal.aborted
        ? original.signal
        : AbortSignal.any([original.signal, AbortSignal.timeout(timeoutMs)]);
      return fetchImpl(
        new Request(url, {
          method,
          headers: signed,
          body: method === 'GET' || method === 'HEAD' ? undefined : body,
          signal,
        }),
      );
    };
    if (!policy) return send();
    return withRetries(send, { method, idempotent: headers.has(HEADERS.idempotencyKey) }, policy);
  };
}

/**
 * The typed client. Every call returns `{ data, error, response }`; `error` is the service's
 * `Error` body (`code`, `message`, `request_id`). A network failure that outlives the retries
 * is thrown.
 */
export function createPartnerClient(options: PartnerClientOptions): PartnerClient {
  return createClient<PartnerPaths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: createSignedFetch(options),
  });
}

/** The secret must never reach a browser: a signing client there would publish it. */
function refuseBrowser(): void {
  const g = globalThis as { window?: unknown; document?: unknown };
  if (typeof g.window !== 'undefined' && typeof g.document !== 'undefined') {
    throw new Error('The partner client signs with your secret and must run on a server, never in a browser.');
  }
}
