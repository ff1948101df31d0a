// The suite's HTTP layer: every exchange is recorded (for the schema family and for failure
// reports), signed requests go through the one protocol module, and the deployment's rate
// limits are honoured (RateLimit headers read, Retry-After waited) rather than tripped.
import { randomUUID } from 'node:crypto';
import { HEADERS, sign } from '../client/protocol/index.ts';
import { parseRateLimit } from '../client/rate-limit.ts';
import { ClientPool } from './clients.ts';

export interface Exchange {
  family: string;
  check: string;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  ms: number;
  /** The operation the exchange was aimed at, when the sender knows it (schema family). */
  operation?: { method: string; path: string } | undefined;
  /** Set by families that send deliberately invalid requests; the schema family still checks the answer. */
  deliberate?: boolean;
  /** Every Set-Cookie field of the answer (responseHeaders keeps only the last). */
  setCookies?: string[];
  /** The local address the request was sent from, when the run acts as several clients. */
  client?: string | undefined;
}

export interface Credentials {
  keyId: string;
  secret: string;
}

export interface SendOptions {
  method?: string;
  /** Path with the raw query string, e.g. `/api/partner/v1/availability?domain=a.com`. */
  target: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Do not wait and retry on 429 (the rate-limit checks want to see it). */
  acceptRateLimit?: boolean;
  operation?: { method: string; path: string };
  /** The rate-limit class of the operation (`x-rate-limit`), to wait only for its own window. */
  rateClass?: string;
  deliberate?: boolean;
  /** Sends `Authorization: Bearer <token>`; the token is then the rate-limited caller. */
  bearer?: string;
  /** The local address to send from (a client of the pool); unset, the recorder picks one. */
  client?: string;
  /** How many calls the deployment counts for this request (a public batch: one per entry). */
  cost?: number;
}

export interface SignOptions {
  credentials: Credentials;
  /** Override the timestamp (seconds, as a string) or the nonce; tests of the protocol need both. */
  timestamp?: string;
  nonce?: string;
  /** Sign these instead of what is sent (to provoke mismatches). */
  signTarget?: string;
  signBody?: string | Uint8Array;
  signMethod?: string;
  /** A signature header to send instead of the computed one. */
  signatureOverride?: (computed: string) => string;
  /** The clock the signer uses, seconds (defaults to local time plus the measured offset). */
}

export class HttpRecorder {
  readonly exchanges: Exchange[] = [];
  family = '';
  check = '';
  /** Server time minus local time, ms (measured by the clock-skew family). */
  clockOffsetMs = 0;
  private readonly pause = new Map<string, number>();
  /** The last known window of each caller and policy: requests left and when it resets. */
  private readonly windows = new Map<string, { remaining: number; resetAt: number }>();
  private rotation = 0;

  constructor(
    readonly baseUrl: string,
    private readonly fetchImpl: typeof fetch = globalThis.fetch,
    private readonly log: (line: string) => void = () => {},
    /** The clients this run may act as (see clients.ts); one by default. */
    readonly clients: ClientPool = ClientPool.single(),
  ) {}

  nowSeconds(): number {
    return Math.floor((Date.now() + this.clockOffsetMs) / 1000);
  }

  /** Sends one request; on 429 (unless accepted) waits Retry-After and sends a freshly prepared copy. */
  async send(options: SendOptions, prepare?: (headers: Record<string, string>) => Record<string, string>): Promise<Exchange> {
    for (let attempt = 0; ; attempt++) {
      const exchange = await this.sendOnce(options, prepare);
      if (exchange.status !== 429 || options.acceptRateLimit || attempt >= 5) return exchange;
      // Another client of the pool may still have its window: the rotation picks it.
      if (options.client === undefined && exchange.client !== undefined && attempt < 4) continue;
      const wait = Math.max(1, Number(exchange.responseHeaders['retry-after'] ?? '1'));
      this.log(`  rate limited; waiting ${wait} s as Retry-After asks`);
      await sleep(wait * 1000 + 50);
    }
  }

  /** A signed partner request: fresh timestamp and nonce unless overridden. */
  async signed(options: SendOptions & SignOptions): Promise<Exchange> {
    return this.send(options, (headers) => {
      const method = (options.method ?? 'GET').toUpperCase();
      const target = options.signTarget ?? options.target;
      const [path = '/', query = ''] = splitOnce(target, '?');
      const timestamp = options.timestamp ?? String(this.nowSeconds());
      const nonce = options.nonce ?? randomUUID();
      const computed = sign({
        secret: options.credentials.secret,
        method: options.signMethod ?? method,
        path,
        query,
        timestamp,
        nonce,
        body: options.signBody ?? options.body ?? '',
      });
      return {
        ...headers,
        [HEADERS.keyId]: options.credentials.keyId,
        [HEADERS.timestamp]: timestamp,
        [HEADERS.nonce]: nonce,
        [HEADERS.signature]: options.signatureOverride ? options.signatureOverride(computed) : computed,
      };
    });
  }

  private async sendOnce(options: SendOptions, prepare?: (headers: Record<string, string>) => Record<string, string>): Promise<Exchange> {
    const method = (options.method ?? 'GET').toUpperCase();
    const body = options.body === undefined ? '' : options.body;
    const baseHeaders: Record<string, string> = {
      ...(body !== '' ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
      ...(options.bearer !== undefined ? { authorization: `Bearer ${options.bearer}` } : {}),
    };
    // Who the deployment counts this request against: the partner key id, the bearer token, or
    // (public requests without a token) the client address.
    const keyId = baseHeaders[HEADERS.keyId] ?? (prepare ? prepare({})[HEADERS.keyId] : undefined);
    const bearer = /^Bearer\s+(.+)$/i.exec(headerOf(baseHeaders, 'authorization') ?? '')?.[1];
    const partner = keyId !== undefined || options.target.startsWith('/api/partner/') || options.target.startsWith('/api/admin/');
    const cost = options.cost ?? 1;
    const client = options.client ?? (partner || bearer !== undefined ? undefined : this.rotatingClient(options.rateClass, cost));
    const caller = keyId ?? (bearer !== undefined ? `bearer:${bearer}` : client !== undefined ? `ip:${client}` : '');
    // Wait for a spent window of this caller first (prepared again afterwards: a fresh timestamp).
    // A check that wants to see the 429 sends straight through.
    const resumeAt = options.acceptRateLimit ? 0 : this.resumeAt(caller, options.rateClass, cost);
    if (resumeAt > Date.now()) await sleep(resumeAt - Date.now());
    const headers = prepare ? prepare(baseHeaders) : baseHeaders;
    const started = performance.now();
    const url = this.baseUrl + options.target;
    const send = client !== undefined ? this.clients.fetchFrom(client) : this.fetchImpl;
    const response = await send(url, {
      method,
      headers,
      ...(body === '' || method === 'GET' || method === 'HEAD' ? {} : { body: typeof body === 'string' ? body : Buffer.from(body) }),
      redirect: 'manual',
    });
    const responseBody = await response.text();
    const exchange: Exchange = {
      family: this.family,
      check: this.check,
      method,
      url,
      requestHeaders: headers,
      requestBody: typeof body === 'string' ? body : Buffer.from(body).toString('utf8'),
      status: response.status,
      responseHeaders: headersObject(response.headers),
      responseBody,
      ms: Math.round(performance.now() - started),
      operation: options.operation,
      deliberate: options.deliberate,
      setCookies: response.headers.getSetCookie(),
      client,
    };
    this.exchanges.push(exchange);
    // Stay inside the deployment's limits: when a window is spent, wait for it to reset.
    const state = parseRateLimit(response.headers);
    if (state) this.windows.set(`${caller}|${state.policy ?? '*'}`, { remaining: state.remaining, resetAt: Date.now() + state.resetSeconds * 1000 + 50 });
    if (state && state.remaining === 0 && response.status !== 429) {
      this.pause.set(`${caller}|${state.policy ?? '*'}`, Date.now() + state.resetSeconds * 1000 + 50);
    } else if (response.status === 429 && !options.acceptRateLimit) {
      const wait = Math.max(1, Number(response.headers.get('retry-after') ?? '1'));
      this.pause.set(`${caller}|${state?.policy ?? options.rateClass ?? '*'}`, Date.now() + wait * 1000 + 50);
    }
    return exchange;
  }

  /**
   * A fetch for libraries that make their own requests (the MCP SDK, oauth4webapi): requests to
   * the deployment go through `send` (recorded, paced, from this run's clients), others straight out.
   */
  asFetch(defaults: Partial<SendOptions> = {}): typeof fetch {
    return (async (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' || input instanceof URL ? String(input) : input.url;
      if (!url.startsWith(this.baseUrl)) return this.fetchImpl(input, init);
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, name) => {
        headers[name] = value;
      });
      const raw = init?.body;
      const body = raw === undefined || raw === null ? '' : typeof raw === 'string' ? raw : raw instanceof URLSearchParams ? raw.toString() : Buffer.from(await new Response(raw).arrayBuffer()).toString('utf8');
      const exchange = await this.send({ ...defaults, method: init?.method ?? 'GET', target: url.slice(this.baseUrl.length) || '/', headers, body });
      const out = new Headers();
      for (const [name, value] of Object.entries(exchange.responseHeaders)) if (name !== 'set-cookie') out.set(name, value);
      for (const cookie of exchange.setCookies ?? []) out.append('set-cookie', cookie);
      const nullBody = [204, 205, 304].includes(exchange.status);
      return new Response(nullBody ? null : exchange.responseBody, { status: exchange.status, headers: out });
    }) as typeof fetch;
  }

  /** The client for a public request that names none: the current one, or the next whose window is open. */
  private rotatingClient(rateClass: string | undefined, cost: number): string | undefined {
    const shared = this.clients.shared();
    if (shared.length === 0) return undefined;
    const now = Date.now();
    const resume = (a: string) => this.resumeAt(`ip:${a}`, rateClass, cost);
    let best = this.rotation;
    for (let i = 0; i < shared.length; i++) {
      const index = (this.rotation + i) % shared.length;
      if (resume(shared[index]!) <= now) {
        best = index;
        break;
      }
      if (resume(shared[index]!) < resume(shared[best]!)) best = index;
    }
    this.rotation = best;
    return shared[best];
  }

  private resumeAt(caller: string, rateClass: string | undefined, cost = 1): number {
    let latest = 0;
    const applies = (key: string) => (rateClass !== undefined ? key === `${caller}|${rateClass}` : key.startsWith(`${caller}|`));
    for (const [key, at] of this.pause) if (applies(key)) latest = Math.max(latest, at);
    // A request that costs more than the window has left waits for the reset too.
    for (const [key, w] of this.windows) if (applies(key) && w.remaining < cost && w.resetAt > Date.now()) latest = Math.max(latest, w.resetAt);
    return latest;
  }
}

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

function headersObject(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

export function splitOnce(text: string, separator: string): [string, string] {
  const i = text.indexOf(separator);
  return i < 0 ? [text, ''] : [text.slice(0, i), text.slice(i + separator.length)];
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The JSON body of an exchange, or undefined when it is not JSON. */
export function jsonOf(exchange: Exchange): unknown {
  try {
    return JSON.parse(exchange.responseBody) as unknown;
  } catch {
    return undefined;
  }
}

/** A compact, reproducible description of an exchange for failure reports. */
export function describeExchange(e: Exchange): string {
  const reqHeaders = Object.entries(e.requestHeaders)
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n');
  const resHeaders = Object.entries(e.responseHeaders)
    .filter(([k]) => !['date', 'connection', 'keep-alive', 'content-length'].includes(k))
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n');
  const body = e.responseBody.length > 600 ? `${e.responseBody.slice(0, 600)}…` : e.responseBody;
  return `> ${e.method} ${e.url}${e.client ? ` (sent from ${e.client})` : ''}\n${reqHeaders}${e.requestBody ? `\n\n  ${e.requestBody.slice(0, 600)}` : ''}\n< ${e.status}\n${resHeaders}\n\n  ${body}`;
}
