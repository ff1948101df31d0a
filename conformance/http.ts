// The suite's HTTP layer: every exchange is recorded (for the schema family, failure reports and
// replayable bundles), signed requests go through the one protocol module, and the deployment's
// rate limits are honoured (RateLimit headers read, Retry-After waited) rather than tripped.
// Which check sent a request is carried by an async scope, so the partner and public lanes can
// run side by side.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { canonicalString, HEADERS, signatureHex } from '../client/protocol/index.ts';
import { parseRateLimit } from '../client/rate-limit.ts';
import { createTransport, type TransportFailure } from './bundle/transport.mjs';
import { ClientPool } from './clients.ts';

/**
 * How a signed request's signature was made, so a replay can sign it again with a fresh
 * timestamp and nonce and make the same mistake a check made on purpose (and no other).
 */
export interface SigningRecord {
  /** The six lines that were signed. */
  canonical: string;
  /** False when the lines differ on purpose from what the request as sent produces (another query line, body, method). */
  matchesRequest: boolean;
  /** The HMAC key: the credential's secret, its key id (a deliberate mistake), or other text (an unknown key id). */
  key: 'secret' | 'key-id' | 'other';
  /** The header sent: the computed value, the computed value with its last hex digit changed, or other text. */
  header: 'computed' | 'flipped' | 'verbatim';
}

export interface Exchange {
  family: string;
  /** The title of the check that sent it. */
  check: string;
  /** The requirement ID of the check that sent it. */
  checkId: string;
  /** When the request was sent (epoch ms). */
  startedAt: number;
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
  /** Present on signed partner requests (see SigningRecord). */
  signing?: SigningRecord | undefined;
  /** An operator API call (its bearer token is never written to a report). */
  operator?: boolean | undefined;
}

/** What the run knows of a credential it holds: for replays, which one it was (1, 2, ...) and its scopes. */
export interface KnownCredential {
  ordinal: number;
  secret: string;
  scopes?: string[] | undefined;
  partnerId?: string | undefined;
}

/** The check a piece of work belongs to, and how long it waited for rate-limit windows. */
export interface Scope {
  family: string;
  checkId: string;
  check: string;
  waitedMs: number;
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
  /** Another origin than the recorder's base URL (the operator API behind a proxy). */
  origin?: string;
  /** An operator API call. */
  operator?: boolean;
  /** Set by `signed`: how the signature it sent was made. */
  signingRecord?: () => SigningRecord | undefined;
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
  /** Sign this QUERY_STRING line instead of the canonical query (a signer's mistake, on purpose). */
  queryLine?: string;
}

/** The scope (family name) of the requests that undo what a run changed. */
export const TEARDOWN = 'teardown';

const flipLast = (s: string) => s.replace(/.$/, (c) => (c === '0' ? '1' : '0'));

export class HttpRecorder {
  readonly exchanges: Exchange[];
  /** Server time minus local time, ms (measured by the clock-skew family). */
  clockOffsetMs = 0;
  /** The credentials the run holds, by key id. */
  readonly credentials: Map<string, KnownCredential>;
  /** Milliseconds waited for rate-limit windows, by family. */
  readonly waits: Map<string, number>;
  private readonly pause = new Map<string, number>();
  /** The last known window of each caller and policy: requests left and when it resets. */
  private readonly windows = new Map<string, { remaining: number; resetAt: number; limit: number }>();
  private readonly scopes: AsyncLocalStorage<Scope>;
  private rotation = 0;
  /** Webhook deliveries the kit's receiver got, by event type (API coverage). */
  readonly webhookDeliveries: Map<string, number>;
  /** Shared with unpaced copies: set when the run is interrupted (see stop). */
  private readonly stopped: { value: boolean };
  /** How every request reaches the deployment: the kit's transport unless a test gives another. */
  private readonly fetchImpl: typeof fetch;

  constructor(
    readonly baseUrl: string,
    /** Default: the kit's transport (bundle/transport.mjs), which sends a request once more only by its rule. */
    fetchImpl?: typeof fetch,
    private readonly log: (line: string) => void = () => {},
    /** The clients this run may act as (see clients.ts); one by default. */
    readonly clients: ClientPool = ClientPool.single(),
    /** Shares the parent's record (exchanges, credentials, scopes) but keeps rate-limit windows of its own. */
    parent?: HttpRecorder,
  ) {
    this.exchanges = parent?.exchanges ?? [];
    this.credentials = parent?.credentials ?? new Map();
    this.waits = parent?.waits ?? new Map();
    this.scopes = parent?.scopes ?? new AsyncLocalStorage<Scope>();
    this.stopped = parent?.stopped ?? { value: false };
    this.webhookDeliveries = parent?.webhookDeliveries ?? new Map();
    if (parent) this.clockOffsetMs = parent.clockOffsetMs;
    this.fetchImpl = fetchImpl ?? parent?.fetchImpl ?? createTransport({ onResend: (...a) => this.resent(...a) });
    clients.onResend ??= (...a) => this.resent(...a);
  }

  /** Says when the transport sent a request once more (a stale kept-alive connection, transport.mjs). */
  private resent(method: string, url: string, failure: TransportFailure): void {
    this.log(
      `  ${method} ${url} sent once more: the connection failed (${failure.code}${failure.reusedSocket ? ' on a reused kept-alive socket' : ''}) before any byte of the answer`,
    );
  }

  /** Closes the kept-alive connections of the run. */
  close(): void {
    (this.fetchImpl as { close?: () => void }).close?.();
    this.clients.close();
  }

  /** A recorder that records into this one but does not wait for windows this one saw spent. */
  unpaced(): HttpRecorder {
    return new HttpRecorder(this.baseUrl, this.fetchImpl, this.log, this.clients, this);
  }

  /** Runs work as one check: its exchanges are recorded under it, its waits counted. */
  scope(
    family: string,
    checkId: string,
    check = checkId,
  ): { run<T>(work: () => Promise<T>): Promise<T>; readonly waitedMs: number } {
    const scope: Scope = { family, checkId, check, waitedMs: 0 };
    return {
      run: (work) => this.scopes.run(scope, work),
      get waitedMs() {
        return scope.waitedMs;
      },
    };
  }

  /** Refuses every request from now on but the teardown's (an interrupted run). */
  stop(): void {
    this.stopped.value = true;
  }

  /** The check running now (in this async context), if any. */
  current(): Scope | undefined {
    return this.scopes.getStore();
  }

  /** Remembers a credential the run holds (given or minted), so replays can stand in another for it. */
  register(credentials: Credentials, info: { scopes?: string[]; partnerId?: string } = {}): void {
    if (this.credentials.has(credentials.keyId)) return;
    this.credentials.set(credentials.keyId, {
      ordinal: this.credentials.size + 1,
      secret: credentials.secret,
      ...info,
    });
  }

  /** What is left of a caller's window of one rate-limit class, as the last answer said (undefined: not seen yet). */
  window(caller: string, rateClass: string): { remaining: number; limit: number; resetInMs: number } | undefined {
    const w = this.windows.get(`${caller}|${rateClass}`);
    if (!w) return undefined;
    const resetInMs = w.resetAt - Date.now();
    return resetInMs <= 0
      ? { remaining: w.limit, limit: w.limit, resetInMs: 0 }
      : { remaining: w.remaining, limit: w.limit, resetInMs };
  }

  nowSeconds(): number {
    return Math.floor((Date.now() + this.clockOffsetMs) / 1000);
  }

  private async wait(ms: number): Promise<void> {
    if (ms <= 0) return;
    const scope = this.current();
    if (scope) {
      scope.waitedMs += ms;
      this.waits.set(scope.family, (this.waits.get(scope.family) ?? 0) + ms);
    }
    await sleep(ms);
  }

  /** Sends one request; on 429 (unless accepted) waits Retry-After and sends a freshly prepared copy. */
  async send(
    options: SendOptions,
    prepare?: (headers: Record<string, string>) => Record<string, string>,
  ): Promise<Exchange> {
    // Once the run is interrupted only its teardown still talks to the deployment.
    if (this.stopped.value && this.current()?.family !== TEARDOWN) throw new Error('the run was interrupted');
    for (let attempt = 0; ; attempt++) {
      const exchange = await this.sendOnce(options, prepare);
      if (exchange.status !== 429 || options.acceptRateLimit || attempt >= 5) return exchange;
      // Another client of the pool may still have its window: the rotation picks it.
      if (options.client === undefined && exchange.client !== undefined && attempt < 4) continue;
      const wait = Math.max(1, Number(exchange.responseHeaders['retry-after'] ?? '1'));
      this.log(`  rate limited; waiting ${wait} s as Retry-After asks`);
      await this.wait(wait * 1000 + 50);
    }
  }

  /** A signed partner request: fresh timestamp and nonce unless overridden. */
  async signed(options: SendOptions & SignOptions): Promise<Exchange> {
    const method = (options.method ?? 'GET').toUpperCase();
    const body = options.body ?? '';
    const known = this.credentials.get(options.credentials.keyId);
    const key: SigningRecord['key'] =
      known?.secret === options.credentials.secret
        ? 'secret'
        : known && options.credentials.secret === options.credentials.keyId
          ? 'key-id'
          : 'other';
    let signing: SigningRecord | undefined;
    return this.send({ ...options, signingRecord: () => signing }, (headers) => {
      const target = options.signTarget ?? options.target;
      const [path = '/', query = ''] = splitOnce(target, '?');
      const timestamp = options.timestamp ?? String(this.nowSeconds());
      const nonce = options.nonce ?? randomUUID();
      const lines = canonicalString({
        method: options.signMethod ?? method,
        path,
        query,
        timestamp,
        nonce,
        body: options.signBody ?? body,
      }).split('\n');
      if (options.queryLine !== undefined) lines[2] = options.queryLine;
      const canonical = lines.join('\n');
      const computed = `v1=${signatureHex(options.credentials.secret, canonical)}`;
      const header = options.signatureOverride ? options.signatureOverride(computed) : computed;
      const deviates =
        options.signTarget !== undefined ||
        options.signBody !== undefined ||
        options.signMethod !== undefined ||
        options.queryLine !== undefined;
      signing = {
        canonical,
        matchesRequest:
          !deviates || sentCanonical({ method, target: options.target, timestamp, nonce, body }) === canonical,
        key,
        header: header === computed ? 'computed' : header === flipLast(computed) ? 'flipped' : 'verbatim',
      };
      return {
        ...headers,
        [HEADERS.keyId]: options.credentials.keyId,
        [HEADERS.timestamp]: timestamp,
        [HEADERS.nonce]: nonce,
        [HEADERS.signature]: header,
      };
    });
  }

  private async sendOnce(
    options: SendOptions,
    prepare?: (headers: Record<string, string>) => Record<string, string>,
  ): Promise<Exchange> {
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
    const partner =
      keyId !== undefined || options.target.startsWith('/api/partner/') || options.target.startsWith('/api/admin/');
    const cost = options.cost ?? 1;
    const client =
      options.client ?? (partner || bearer !== undefined ? undefined : this.rotatingClient(options.rateClass, cost));
    // Unsigned partner and operator requests are counted against no window (a partner 401 comes
    // before the credential is known; the operator API has no limit): they never wait.
    const caller =
      keyId ??
      (bearer !== undefined && !options.operator
        ? `bearer:${bearer}`
        : partner
          ? ''
          : client !== undefined
            ? `ip:${client}`
            : SELF);
    // Wait for a spent window of this caller first (prepared again afterwards: a fresh timestamp).
    // A check that wants to see the 429 sends straight through.
    const resumeAt = options.acceptRateLimit || caller === '' ? 0 : this.resumeAt(caller, options.rateClass, cost);
    if (resumeAt > Date.now()) await this.wait(resumeAt - Date.now());
    const headers = prepare ? prepare(baseHeaders) : baseHeaders;
    const started = performance.now();
    const startedAt = Date.now();
    const url = (options.origin ?? this.baseUrl) + options.target;
    const send = client !== undefined ? this.clients.fetchFrom(client) : this.fetchImpl;
    const response = await send(url, {
      method,
      headers,
      ...(body === '' || method === 'GET' || method === 'HEAD'
        ? {}
        : { body: typeof body === 'string' ? body : Buffer.from(body) }),
      redirect: 'manual',
    });
    const responseBody = await response.text();
    const scope = this.current();
    const exchange: Exchange = {
      family: scope?.family ?? '',
      check: scope?.check ?? '',
      checkId: scope?.checkId ?? '',
      startedAt,
      method,
      url,
      requestHeaders: options.operator ? redactOperatorToken(headers) : headers,
      requestBody: exchangeBody(body),
      status: response.status,
      responseHeaders: headersObject(response.headers),
      responseBody,
      ms: Math.round(performance.now() - started),
      operation: options.operation,
      deliberate: options.deliberate,
      setCookies: response.headers.getSetCookie(),
      client,
      signing: options.signingRecord?.() ?? this.signingOf(method, options.target, headers, exchangeBody(body)),
      operator: options.operator,
    };
    this.exchanges.push(exchange);
    // Stay inside the deployment's limits: when a window is spent, wait for it to reset.
    const state = parseRateLimit(response.headers);
    if (state && caller !== '')
      this.windows.set(`${caller}|${state.policy ?? '*'}`, {
        remaining: state.remaining,
        resetAt: Date.now() + state.resetSeconds * 1000 + 50,
        limit: state.limit,
      });
    if (caller === '') {
      // Counted against nothing: no window to remember.
    } else if (state && state.remaining === 0 && response.status !== 429) {
      this.pause.set(`${caller}|${state.policy ?? '*'}`, Date.now() + state.resetSeconds * 1000 + 50);
    } else if (response.status === 429 && !options.acceptRateLimit) {
      const wait = Math.max(1, Number(response.headers.get('retry-after') ?? '1'));
      this.pause.set(`${caller}|${state?.policy ?? options.rateClass ?? '*'}`, Date.now() + wait * 1000 + 50);
    }
    return exchange;
  }

  /** How many answers each rate-limit policy counted (by their RateLimit-Policy), in all and by family, for the summary. */
  spent(): Map<string, { total: number; byFamily: Map<string, number> }> {
    const out = new Map<string, { total: number; byFamily: Map<string, number> }>();
    for (const e of this.exchanges) {
      const policy = /^"([^"]+)"/.exec(e.responseHeaders['ratelimit-policy'] ?? '')?.[1];
      if (!policy) continue;
      const entry = out.get(policy) ?? { total: 0, byFamily: new Map<string, number>() };
      entry.total++;
      entry.byFamily.set(e.family, (entry.byFamily.get(e.family) ?? 0) + 1);
      out.set(policy, entry);
    }
    return out;
  }

  /**
   * The signing record of a request whose headers were signed elsewhere (a check building the four
   * headers itself): `computed` when they are the correct signature of the request as sent with a
   * credential the run holds, else undefined (a replay then sends the signature as recorded).
   */
  private signingOf(
    method: string,
    target: string,
    headers: Record<string, string>,
    body: string,
  ): SigningRecord | undefined {
    const keyId = headerOf(headers, HEADERS.keyId.toLowerCase());
    const timestamp = headerOf(headers, HEADERS.timestamp.toLowerCase());
    const nonce = headerOf(headers, HEADERS.nonce.toLowerCase());
    const signature = headerOf(headers, HEADERS.signature.toLowerCase());
    const known = keyId === undefined ? undefined : this.credentials.get(keyId);
    if (!known || timestamp === undefined || nonce === undefined || signature === undefined) return undefined;
    const canonical = sentCanonical({ method, target, timestamp, nonce, body });
    if (canonical === undefined || signature !== `v1=${signatureHex(known.secret, canonical)}`) return undefined;
    return { canonical, matchesRequest: true, key: 'secret', header: 'computed' };
  }

  /**
   * A fetch for libraries that make their own requests (the MCP SDK, oauth4webapi): requests to
   * the deployment go through `send` (recorded, paced, from this run's clients), others straight out.
   */
  asFetch(defaults: Partial<SendOptions> = {}): typeof fetch {
    return async (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' || input instanceof URL ? String(input) : input.url;
      if (!url.startsWith(this.baseUrl)) return this.fetchImpl(input, init);
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, name) => {
        headers[name] = value;
      });
      const raw = init?.body;
      const body =
        raw === undefined || raw === null
          ? ''
          : typeof raw === 'string'
            ? raw
            : raw instanceof URLSearchParams
              ? raw.toString()
              : Buffer.from(await new Response(raw).arrayBuffer()).toString('utf8');
      const exchange = await this.send({
        ...defaults,
        method: init?.method ?? 'GET',
        target: url.slice(this.baseUrl.length) || '/',
        headers,
        body,
      });
      const out = new Headers();
      for (const [name, value] of Object.entries(exchange.responseHeaders))
        if (name !== 'set-cookie') out.set(name, value);
      for (const cookie of exchange.setCookies ?? []) out.append('set-cookie', cookie);
      const nullBody = [204, 205, 304].includes(exchange.status);
      return new Response(nullBody ? null : exchange.responseBody, { status: exchange.status, headers: out });
    };
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
    const applies = (key: string) =>
      rateClass !== undefined ? key === `${caller}|${rateClass}` : key.startsWith(`${caller}|`);
    for (const [key, at] of this.pause) if (applies(key)) latest = Math.max(latest, at);
    // A request that costs more than the window has left waits for the reset too.
    for (const [key, w] of this.windows)
      if (applies(key) && w.remaining < cost && w.resetAt > Date.now()) latest = Math.max(latest, w.resetAt);
    return latest;
  }
}

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** The caller a public request without a token counts against when the run is one client. */
export const SELF = 'ip:self';

/** The placeholder an operator call's token is recorded as (reports and bundles never hold it). */
export const ADMIN_TOKEN_PLACEHOLDER = 'Bearer ${ADMIN_TOKEN}';

function redactOperatorToken(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, k.toLowerCase() === 'authorization' ? ADMIN_TOKEN_PLACEHOLDER : v]),
  );
}

const exchangeBody = (body: string | Uint8Array) =>
  typeof body === 'string' ? body : Buffer.from(body).toString('utf8');

/** The canonical string of a request as sent, or undefined when none can be written (a malformed query). */
function sentCanonical(r: {
  method: string;
  target: string;
  timestamp: string;
  nonce: string;
  body: string | Uint8Array;
}): string | undefined {
  const [path = '/', query = ''] = splitOnce(r.target, '?');
  try {
    return canonicalString({ method: r.method, path, query, timestamp: r.timestamp, nonce: r.nonce, body: r.body });
  } catch {
    return undefined;
  }
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
