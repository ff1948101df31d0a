// Runs the chosen families and collects one result per check. The partner and public surfaces
// run side by side (their rate limits are counted apart: per credential and per client), each
// lane in order with its schema family last, over every exchange the others made.
import {
  CheckFailure,
  CheckSkipped,
  ConfigError,
  failureReport,
  NEED_HINTS,
  type Check,
  type Context,
  type Family,
  type Need,
} from './context.ts';
import type { Exchange } from './http.ts';

export type Status = 'passed' | 'failed' | 'skipped';

export interface CheckResult {
  /** The requirement ID (stable; see Check.id). */
  id: string;
  family: string;
  check: string;
  /** The rules the check enforces (seed sections, spec locations). */
  rules: string[];
  status: Status;
  ms: number;
  message?: string;
  counterexample?: string;
  seed?: number;
  /** The exchanges the failure report names (the last ones of the failing example). */
  evidence?: Exchange[];
  /** Set when a baseline lists the check: a known failure, or a stale entry (it passes now). */
  baseline?: { reason: string; verdict: 'known' | 'stale' };
  /** Seconds the check waited for rate-limit windows. */
  waitedMs?: number;
}

export interface RunOptions {
  only?: string[];
  skip?: string[];
  surface?: 'partner' | 'public' | 'all';
  /** Which needs this run can meet; a check needing anything else is skipped with what would enable it. */
  available: Set<Need>;
  onResult?: (result: CheckResult) => void;
  onFamily?: (family: Family) => void;
  /** Run the two surfaces one after the other instead of side by side. */
  sequential?: boolean;
}

/** True when `item` names the check: its family, its ID, or a prefix of IDs ending at a dot. */
export function selects(item: string, family: Family, check: Check): boolean {
  return item === family.name || item === check.id || check.id.startsWith(item.endsWith('.') ? item : `${item}.`);
}

export function selectFamilies(families: Family[], options: Pick<RunOptions, 'only' | 'skip' | 'surface'>): Family[] {
  return families
    .map((f) => ({
      ...f,
      checks: f.checks.filter(
        (c) =>
          (!options.only?.length || options.only.some((i) => selects(i, f, c))) &&
          !options.skip?.some((i) => selects(i, f, c)),
      ),
    }))
    .filter((f) => f.checks.length > 0)
    .filter((f) => !options.surface || options.surface === 'all' || f.surface === options.surface)
    .sort((a, b) => Number(a.last ?? false) - Number(b.last ?? false));
}

export async function runFamilies(ctx: Context, families: Family[], options: RunOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const record = (r: CheckResult) => {
    results.push(r);
    options.onResult?.(r);
  };
  const selected = selectFamilies(families, options);
  const lanes = options.sequential
    ? [selected]
    : (['partner', 'public'] as const).map((s) => selected.filter((f) => f.surface === s));
  await Promise.all(lanes.map((lane) => runLane(ctx, lane, options, record)));
  // Report in the order of the families, whatever lane finished first.
  const order = new Map(
    selected.flatMap((f) =>
      f.checks.map((c, i) => [`${f.name}\u0000${c.id}`, selected.indexOf(f) * 1000 + i] as const),
    ),
  );
  return results.sort(
    (a, b) => (order.get(`${a.family}\u0000${a.id}`) ?? 0) - (order.get(`${b.family}\u0000${b.id}`) ?? 0),
  );
}

async function runLane(
  ctx: Context,
  families: Family[],
  options: RunOptions,
  record: (r: CheckResult) => void,
): Promise<void> {
  for (const family of families) {
    options.onFamily?.(family);
    for (const check of family.checks) {
      const base = { id: check.id, family: family.name, check: check.name, rules: check.rules };
      const unmet = [...family.needs, ...(check.needs ?? [])].filter(
        (n, i, all) => !options.available.has(n) && all.indexOf(n) === i,
      );
      if (unmet.length > 0) {
        record({
          ...base,
          status: 'skipped',
          ms: 0,
          message: `needs ${unmet.map((n) => NEED_HINTS[n]).join('; and ')}`,
        });
        continue;
      }
      const started = performance.now();
      const scope = ctx.http.scope(family.name, check.id);
      try {
        await scope.run(() => check.run(ctx));
        record({ ...base, status: 'passed', ms: Math.round(performance.now() - started), ...waited(scope.waitedMs) });
      } catch (err) {
        const ms = Math.round(performance.now() - started);
        // How the suite was called is wrong, not the deployment: stop with exit code 2.
        if (err instanceof ConfigError) throw err;
        if (err instanceof CheckSkipped) {
          record({ ...base, status: 'skipped', ms, message: err.message });
        } else if (err instanceof CheckFailure) {
          record({
            ...base,
            status: 'failed',
            ms,
            message: failureReport(err),
            evidence: err.exchanges.slice(-2),
            ...(err.counterexample !== undefined ? { counterexample: err.counterexample } : {}),
            ...(err.seed !== undefined ? { seed: err.seed } : {}),
            ...waited(scope.waitedMs),
          });
        } else {
          record({
            ...base,
            status: 'failed',
            ms,
            message: `check crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
            ...waited(scope.waitedMs),
          });
        }
      }
    }
  }
}

const waited = (ms: number) => (ms >= 1 ? { waitedMs: Math.round(ms) } : {});
