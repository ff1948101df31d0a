// Runs the suite against one deployment: builds the context (recorder, contract, credentials
// minted through the operator API when a token is given), runs the chosen families and returns
// the results. The CLI and the suite's own tests both call this; so can a deploy pipeline.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientPool } from './clients.ts';
import { computeCoverage, type Coverage } from './coverage.ts';
import { ConfigError, runTeardowns, type AdminClient, type Context, type Family, type Need } from './context.ts';
import { ALL_FAMILIES } from './families/index.ts';
import { MOCK_FAMILIES } from './families/mock.ts';
import { HttpRecorder, jsonOf, TEARDOWN, type Credentials, type Exchange } from './http.ts';
import { runFamilies, selectFamilies, type CheckResult } from './runner.ts';
import { loadSandbox } from './sandbox.ts';
import { needsSignIn, tryDocumentedUser } from './sandbox-user.ts';
import { SpecIndex } from './spec.ts';

export interface ConformanceOptions {
  baseUrl: string;
  credentials?: Credentials | undefined;
  adminToken?: string | undefined;
  /** Where the operator API (/api/admin/v1) is, when not at baseUrl (e.g. baseUrl is a validating proxy of the partner document). */
  adminBaseUrl?: string | undefined;
  surface?: 'partner' | 'public' | 'all';
  only?: string[];
  skip?: string[];
  seed: number;
  numRuns: number;
  /** pk_live_ credentials: only checks that create nothing. */
  live?: boolean;
  /** The deployment is the in-process reference server (its sandbox users are known). */
  reference?: boolean;
  options?: Record<string, string | undefined>;
  log?: (line: string) => void;
  onFamily?: (family: Family) => void;
  onResult?: (result: CheckResult) => void;
  families?: Family[];
  /** `mock`: a Prism mock of one document (`npm run mock`): only the mock families, no protocol checks. */
  target?: 'deployment' | 'mock';
  /** Exhaust a public rate limit to see the 429 (default: only against the reference server). */
  provokeRateLimit?: boolean;
  /** Aborted (Ctrl-C): the run stops sending, undoes what it changed, and rejects with RunInterrupted. */
  signal?: AbortSignal;
}

/** The run was interrupted (ConformanceOptions.signal); what it changed was undone first. */
export class RunInterrupted extends Error {
  constructor() {
    super('the run was interrupted');
  }
}

/** The operator API, through the recorder (so its calls are in the run's record and in bundles; the token never is). */
function adminClient(http: HttpRecorder, origin: string | undefined, token: string): AdminClient {
  const post = async (path: string, body?: unknown) => {
    const exchange = await http.send({
      method: 'POST',
      target: `/api/admin/v1${path}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
      operator: true,
      ...(origin !== undefined ? { origin } : {}),
    });
    return { status: exchange.status, body: jsonOf(exchange) ?? exchange.responseBody, exchange };
  };
  return {
    post,
    async mint(body) {
      const res = await post('/credentials', { environment: 'sandbox', ...body });
      const created = res.body as { key_id?: string; secret?: string; partner_id?: string };
      if (res.status !== 201 || !created.key_id || !created.secret || !created.partner_id) {
        throw new ConfigError(
          `minting a credential through the operator API failed: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`,
        );
      }
      const minted = { keyId: created.key_id, secret: created.secret, partnerId: created.partner_id };
      http.register(minted, { scopes: body.scopes, partnerId: created.partner_id });
      return minted;
    },
  };
}

/** True when the deployment is on this machine's loopback, so it can reach a receiver listening there. */
export function isLoopback(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Every partner scope, with quotas high enough that a local run never waits. */
const ALL_SCOPES = ['search', 'embed', 'buy', 'broker', 'refer', 'report', 'webhook'];
const FAST_LIMITS = { search: 100_000, write: 100_000, reporting: 100_000 };

export interface ConformanceRun {
  results: CheckResult[];
  /** What the run exercised of the contract (coverage.ts). */
  coverage: Coverage;
  seconds: number;
  families: Family[];
  exchanges: Exchange[];
  /** The run's record: exchanges, the credentials it held, the measured clock offset, waits. */
  http: HttpRecorder;
}

export async function runConformance(o: ConformanceOptions): Promise<ConformanceRun> {
  const log = o.log ?? (() => {});
  const options = { ...o.options };
  if (o.reference && !options.oauthUser) {
    // The reference server seeds its documented sandbox user (README) unless told otherwise.
    const { DEFAULT_SANDBOX_USER } = await loadSandbox();
    options.oauthUser = DEFAULT_SANDBOX_USER.email;
    options.oauthPassword = DEFAULT_SANDBOX_USER.password;
  }
  const clients = o.target === 'mock' ? ClientPool.single() : await ClientPool.forBaseUrl(o.baseUrl);
  if (clients.size > 0)
    log(
      `  the deployment is on loopback: public requests come from ${clients.size} client addresses (127.0.0.2-254), each with its own rate-limit window`,
    );
  const http = new HttpRecorder(o.baseUrl, undefined, log, clients);
  const admin = o.adminToken ? adminClient(http, o.adminBaseUrl, o.adminToken) : undefined;
  if (o.credentials) http.register(o.credentials);
  // One promise, so the two lanes asking at once mint one credential.
  let main: Promise<Credentials & { partnerId?: string }> | undefined = o.credentials
    ? Promise.resolve(o.credentials)
    : undefined;
  const ctx: Context = {
    http,
    spec: SpecIndex.load(),
    fc: { seed: o.seed, numRuns: o.numRuns },
    admin,
    async credentials() {
      if (!main && admin) main = admin.mint({ scopes: ALL_SCOPES, affiliate: true, rate_limits: FAST_LIMITS });
      if (!main)
        throw new ConfigError(
          'no partner credential: pass --key-id/--secret (or SERVICE_KEY_ID/SERVICE_SECRET) or --admin-token',
        );
      return main;
    },
    async mint(scopes, extra = {}) {
      if (!admin) throw new ConfigError('minting credentials needs --admin-token');
      return admin.mint({ scopes, rate_limits: FAST_LIMITS, ...extra });
    },
    writesAllowed: !o.live,
    // Lines a check logs name its family: the two surfaces run side by side.
    log: (line) => {
      const scope = http.current();
      log(scope ? `  [${scope.family}] ${line.replace(/^\s+/, '')}` : line);
    },
    options,
    // Spending one client's window costs nothing when the run acts as many clients (127.0.0.0/8).
    provokeRateLimit: o.provokeRateLimit === true || o.reference === true || clients.size > 0,
  };
  const available = new Set<Need>();
  if (admin) available.add('admin');
  if (admin || o.credentials) available.add('credentials');
  if (!o.live) available.add('writes');
  if (!o.live && (isLoopback(o.baseUrl) || options.webhookPublicUrl)) available.add('webhook-receiver');
  const selection = { only: o.only ?? [], skip: o.skip ?? [], surface: o.surface ?? 'all' };
  const families = selectFamilies(o.families ?? (o.target === 'mock' ? MOCK_FAMILIES : ALL_FAMILIES), selection);
  const started = performance.now();
  let results: CheckResult[];
  // Ctrl-C (o.signal): stop sending, undo what the run changed, and reject.
  let abort: Promise<never> | undefined;
  if (o.signal) {
    const signal = o.signal;
    abort = new Promise<never>((_, reject) => {
      const stop = () => {
        http.stop();
        reject(new RunInterrupted());
      };
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
    });
    abort.catch(() => {});
  }
  const work = (async () => {
    // A sandbox run without a sign-in user tries the one the sandbox documents (sandbox-user.ts).
    if (!(options.oauthUser && options.oauthPassword) && !o.live && o.target !== 'mock' && needsSignIn(families))
      log((await tryDocumentedUser(ctx)).line);
    if (options.oauthUser && options.oauthPassword) available.add('oauth-user');
    return runFamilies(ctx, families, {
      ...selection,
      available,
      ...(o.onFamily ? { onFamily: o.onFamily } : {}),
      ...(o.onResult ? { onResult: o.onResult } : {}),
    });
  })();
  work.catch(() => {});
  try {
    results = await (abort ? Promise.race([work, abort]) : work);
  } finally {
    // What the run changed is put back (the webhook registration...), also after a failure or Ctrl-C.
    const problems = await http.scope(TEARDOWN, TEARDOWN).run(() => runTeardowns(ctx));
    for (const p of problems) log(`  could not undo ${p}`);
    http.close();
  }
  const coverage = computeCoverage(ctx.spec, http.exchanges, results, http.webhookDeliveries, o.baseUrl);
  return {
    results,
    coverage,
    seconds: (performance.now() - started) / 1000,
    families,
    exchanges: http.exchanges,
    http,
  };
}

/**
 * Starts the reference server in-process on a temporary SQLite database (the one-command demo,
 * and the deployment the suite's own tests check, with `faults` to break it on purpose: the
 * test-only switches of server/faults.ts). Its server is loaded by ./sandbox.ts.
 */
export async function startReferenceServer(
  faults?: ReadonlySet<string>,
  extra: { sandboxUser?: { email: string; password: string } } = {},
): Promise<{ url: string; adminToken: string; stop(): Promise<void>; metrics(): Promise<string> }> {
  const { startServer } = await loadSandbox();
  const dataDir = await mkdtemp(join(tmpdir(), 'conformance-'));
  const adminToken = randomBytes(16).toString('hex');
  const running = await startServer({
    config: {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      databaseUrl: undefined,
      adminToken,
      masterKey: randomBytes(32),
      sandboxInventorySize: 2000,
      validateResponses: true,
      publicBaseUrl: undefined,
      webhookBackoffScale: 0.001,
      webhookTimeoutMs: 5000,
      ...(extra.sandboxUser ? { sandboxUser: extra.sandboxUser } : {}),
    },
    log: () => {},
    ...(faults ? { faults } : {}),
  });
  return {
    url: running.url,
    adminToken,
    /** The server's Prometheus exposition (GET /metrics), e.g. webhook_outbox_depth. */
    metrics: async () => (await running.metrics?.registry.metrics()) ?? '',
    async stop() {
      await running.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
