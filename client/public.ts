// The typed public client: openapi-fetch over the generated public types, an optional bearer
// token (which unmasks prices), the shared retry policy, and the last rate-limit state seen.
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '@domain-sales/contract/public';
import { defaultRetryPolicy, withRetries, type RetryOptions } from './http/retry.ts';
import { parseRateLimit, type RateLimitState } from './rate-limit.ts';

export type PublicPaths = paths;

export interface PublicClientOptions {
  baseUrl: string;
  /** A bearer token, or a function returning the current one (e.g. from a refreshing store). */
  accessToken?: string | (() => string | undefined | Promise<string | undefined>);
  fetch?: (request: Request) => Promise<Response>;
  retry?: RetryOptions | false;
  /** Called with the rate-limit state of every answer that carries one. */
  onRateLimit?: (state: RateLimitState, response: Response) => void;
}

export type PublicClient = Client<paths> & {
  /** The rate-limit state of the most recent answer, if it carried the headers. */
  rateLimit(): RateLimitState | undefined;
};

export function createPublicClient(options: PublicClientOptions): PublicClient {
  const fetchImpl = options.fetch ?? ((r: Request) => globalThis.fetch(r));
  const policy = options.retry === false ? undefined : defaultRetryPolicy(options.retry);
  let last: RateLimitState | undefined;

  const transport = async (original: Request): Promise<Response> => {
    const method = original.method.toUpperCase();
    const body = method === 'GET' || method === 'HEAD' ? undefined : new Uint8Array(await original.arrayBuffer());
    const token = typeof options.accessToken === 'function' ? await options.accessToken() : options.accessToken;
    const send = () => {
      const headers = new Headers(original.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      return fetchImpl(new Request(original.url, { method, headers, body, signal: original.signal }));
    };
    const response = policy
      ? await withRetries(send, { method, idempotent: original.headers.has('idempotency-key') }, policy)
      : await send();
    const state = parseRateLimit(response.headers);
    if (state) {
      last = state;
      options.onRateLimit?.(state, response);
    }
    return response;
  };

  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), fetch: transport });
  return Object.assign(client, { rateLimit: () => last });
}
