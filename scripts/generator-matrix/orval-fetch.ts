// The fetch orval's generated functions call (its `mutator`, named in the generator matrix's
// orval config): each call says where and with which fetch, so the same generated public and
// partner functions can be sent plainly or signed (`createPartnerFetch` of the client package).
export interface OrvalCallOptions extends RequestInit {
  /**
   * The deployment, e.g. `http://127.0.0.1:8080` (the generated paths start at `/api/...`).
   * Optional in the type only: orval's functions take their options as optional.
   */
  baseUrl?: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

/** What orval's fetch client expects back: the parsed body with the status and headers. */
export async function orvalFetch<T>(url: string, options: OrvalCallOptions): Promise<T> {
  const { baseUrl, fetch: send = globalThis.fetch, ...init } = options;
  if (baseUrl === undefined) throw new Error(`orvalFetch: no baseUrl for ${url}`);
  const response = await send(`${baseUrl.replace(/\/+$/, '')}${url}`, init);
  const text = await response.text();
  const json = /[/+]json\b/.test(response.headers.get('content-type') ?? '');
  const data: unknown = json && text ? JSON.parse(text) : text;
  return { data, status: response.status, headers: response.headers } as T;
}

export default orvalFetch;
