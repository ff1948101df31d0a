// What every check family gets: the recorder, the contract documents, fast-check settings,
// credentials (given, or minted through the operator API), and assertion helpers whose failures
// carry the exact exchange to reproduce them.
import fc from 'fast-check';
import { describeExchange, jsonOf, type Credentials, type Exchange, type HttpRecorder } from './http.ts';
import { plannedRuns, type Spend } from './pacing.ts';
import type { SpecIndex } from './spec.ts';

export type Surface = 'partner' | 'public';
export type Need = 'admin' | 'credentials' | 'writes' | 'webhook-receiver' | 'oauth-user';

/** What would let a run meet each need: a skip names exactly this. */
export const NEED_HINTS: Record<Need, string> = {
  admin: 'an operator token (--admin-token or ADMIN_TOKEN)',
  credentials:
    'a partner credential (--key-id/--secret or SERVICE_KEY_ID/SERVICE_SECRET) or an operator token (--admin-token)',
  writes: 'a sandbox credential (pk_test_): with --allow-live only checks that create nothing run',
  'webhook-receiver':
    "a URL the deployment can deliver to (--webhook-public-url, and --webhook-listen for the suite's receiver); a deployment off this machine cannot reach 127.0.0.1",
  'oauth-user': 'a sandbox sign-in user (--oauth-user/--oauth-password or SANDBOX_USER_EMAIL/SANDBOX_USER_PASSWORD)',
};

export interface Check {
  /**
   * The requirement ID: stable, never reused for another meaning (retired ones are listed in
   * conformance/requirements.ts). Dotted lowercase, e.g. `partner.auth.skew.past-edge`.
   */
  id: string;
  /** Title: what the check asserts. */
  name: string;
  /**
   * The rules it enforces: `spec:<api>#<JSON pointer>` (a location in a bundled document),
   * `spec:<api>:<operationId>#<pointer>` (inside one operation) or `seed:<partner|public> › <section>`.
   */
  rules: string[];
  /** Needs beyond the family's (a check of a family that runs without them). */
  needs?: Need[];
  run(ctx: Context): Promise<void>;
}

export interface Family {
  name: string;
  surface: Surface;
  description: string;
  needs: Need[];
  checks: Check[];
  /** Runs after every other family (the schema family reads all their exchanges). */
  last?: boolean;
}

export class CheckFailure extends Error {
  constructor(
    message: string,
    readonly exchanges: Exchange[] = [],
    readonly counterexample?: string,
    readonly seed?: number,
  ) {
    super(message);
  }
}

/**
 * The run lacks something the check needs (an operator token, a sign-in user, a reachable
 * receiver, a credential with a scope...). The message says exactly what would enable it. What
 * the deployment does wrong, or fails to do in its documented time, is a CheckFailure instead.
 */
export class CheckSkipped extends Error {
  constructor(what: string) {
    super(what.startsWith('needs ') ? what : `needs ${what}`);
  }

  static need(need: Need): CheckSkipped {
    return new CheckSkipped(NEED_HINTS[need]);
  }
}

/** A problem with how the suite was invoked (exit code 2), not with the deployment. */
export class ConfigError extends Error {}

export interface AdminClient {
  mint(body: {
    scopes: string[];
    environment?: 'sandbox' | 'live';
    affiliate?: boolean;
    approved?: boolean;
    partner_id?: string;
    rate_limits?: Record<string, number>;
  }): Promise<Credentials & { partnerId: string }>;
  post(path: string, body?: unknown): Promise<{ status: number; body: unknown; exchange: Exchange }>;
}

export interface Context {
  http: HttpRecorder;
  spec: SpecIndex;
  fc: { seed: number; numRuns: number };
  admin: AdminClient | undefined;
  /** The credential most checks use: all scopes the deployment allows. */
  credentials(): Promise<Credentials & { partnerId?: string }>;
  /** A new credential with exactly these scopes (needs the operator API). */
  mint(
    scopes: string[],
    extra?: { rate_limits?: Record<string, number>; affiliate?: boolean },
  ): Promise<Credentials & { partnerId: string }>;
  /** False when the run may not create anything (live credentials). */
  writesAllowed: boolean;
  log(line: string): void;
  /** Options passed through from the command line that one family needs (webhook listener, OAuth user...). */
  options: Record<string, string | undefined>;
  /**
   * The suite may exhaust a rate limit on purpose to see the 429 (the local reference server, or
   * the operator said so with --provoke-rate-limit); otherwise it only ever stays inside them.
   */
  provokeRateLimit: boolean;
}

const memos = new WeakMap<Context, Map<string, Promise<unknown>>>();

/** One value per run (per context), built once and shared by the checks; a failed build is tried again by the next caller. */
export function oncePerRun<T>(ctx: Context, key: string, build: () => Promise<T>): Promise<T> {
  let memo = memos.get(ctx);
  if (!memo) memos.set(ctx, (memo = new Map()));
  let value = memo.get(key) as Promise<T> | undefined;
  if (!value) {
    value = build();
    memo.set(key, value);
    value.catch(() => memo.delete(key));
  }
  return value;
}

const teardowns = new WeakMap<Context, Array<{ what: string; undo: () => Promise<void> }>>();

/**
 * Registers how to undo something the run changed on the deployment (a webhook registration...).
 * Undone at the end of the run, whatever happened: after a failure, and on Ctrl-C (run.ts).
 */
export function onTeardown(ctx: Context, what: string, undo: () => Promise<void>): void {
  let list = teardowns.get(ctx);
  if (!list) teardowns.set(ctx, (list = []));
  list.push({ what, undo });
}

/** Undoes, newest first, what the run registered; a step that fails is reported and the rest still run. */
export async function runTeardowns(ctx: Context): Promise<string[]> {
  const list = teardowns.get(ctx) ?? [];
  teardowns.delete(ctx);
  const problems: string[] = [];
  for (const { what, undo } of list.reverse()) {
    try {
      await undo();
    } catch (err) {
      problems.push(`${what}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
  return problems;
}

/** Fails unless the exchange is an Error body with this status and code, and a non-empty message. */
export function expectError(exchange: Exchange, status: number, code: string, why: string): void {
  const body = jsonOf(exchange) as { code?: unknown; message?: unknown } | undefined;
  if (exchange.status !== status || body?.code !== code || typeof body.message !== 'string' || body.message === '') {
    throw new CheckFailure(
      `${why}: expected ${status} ${code}, got ${exchange.status} ${String(body?.code ?? '(no Error body)')}`,
      [exchange],
    );
  }
}

export function expectStatus(exchange: Exchange, status: number | number[], why: string): void {
  const allowed = Array.isArray(status) ? status : [status];
  if (!allowed.includes(exchange.status)) {
    throw new CheckFailure(`${why}: expected ${allowed.join(' or ')}, got ${exchange.status}`, [exchange]);
  }
}

export function expect(condition: unknown, message: string, exchanges: Exchange[] = []): asserts condition {
  if (!condition) throw new CheckFailure(message, exchanges);
}

/**
 * Runs a fast-check property whose examples send requests. On failure the shrunk
 * counterexample, the seed to replay it and the last exchange of the failing run are reported.
 * With `spend`, it runs only as many examples as the caller's rate-limit windows have left
 * (see pacing.ts), and says so.
 */
export async function property<T>(
  ctx: Context,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  numRuns?: number,
  spend?: Spend,
): Promise<void> {
  const wanted = numRuns ?? ctx.fc.numRuns;
  const plan = plannedRuns(ctx, wanted, spend);
  if (plan.runs < wanted) ctx.log(`${plan.runs} of ${wanted} runs: ${plan.why ?? ''}`);
  let lastFailure: CheckFailure | undefined;
  const result = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      try {
        await predicate(value);
        return true;
      } catch (err) {
        if (err instanceof CheckFailure) {
          lastFailure = err;
          return false;
        }
        throw err;
      }
    }),
    { seed: ctx.fc.seed, numRuns: plan.runs, endOnFailure: false },
  );
  if (result.failed) {
    const counterexample = result.counterexample ? fc.stringify(result.counterexample[0]) : '(none)';
    const message =
      lastFailure?.message ??
      (result.errorInstance instanceof Error ? result.errorInstance.message : 'property failed');
    throw new CheckFailure(
      `${message}\n  counterexample (after ${result.numShrinks} shrinks): ${counterexample}\n  replay with: --seed ${result.seed}`,
      lastFailure?.exchanges ?? [],
      counterexample,
      result.seed,
    );
  }
}

export function failureReport(err: CheckFailure): string {
  return [err.message, ...err.exchanges.slice(-2).map(describeExchange)].join('\n\n');
}
