// Runs the chosen families in order (the schema family last, over every exchange the others
// made) and collects one result per check.
import { CheckFailure, CheckSkipped, ConfigError, failureReport, type Context, type Family, type Need } from './context.ts';

export type Status = 'passed' | 'failed' | 'skipped';

export interface CheckResult {
  family: string;
  check: string;
  status: Status;
  ms: number;
  message?: string;
  counterexample?: string;
  seed?: number;
}

export interface RunOptions {
  only?: string[];
  skip?: string[];
  surface?: 'partner' | 'public' | 'all';
  /** Which needs this run can meet; a family needing anything else is skipped with the reason. */
  available: Set<Need>;
  onResult?: (result: CheckResult) => void;
  onFamily?: (family: Family) => void;
}

export function selectFamilies(families: Family[], options: Pick<RunOptions, 'only' | 'skip' | 'surface'>): Family[] {
  return families
    .filter((f) => !options.only?.length || options.only.includes(f.name))
    .filter((f) => !options.skip?.includes(f.name))
    .filter((f) => !options.surface || options.surface === 'all' || f.surface === options.surface)
    .sort((a, b) => Number(a.last ?? false) - Number(b.last ?? false));
}

export async function runFamilies(ctx: Context, families: Family[], options: RunOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const record = (r: CheckResult) => {
    results.push(r);
    options.onResult?.(r);
  };
  for (const family of selectFamilies(families, options)) {
    options.onFamily?.(family);
    const unmet = family.needs.filter((n) => !options.available.has(n));
    if (unmet.length > 0) {
      for (const check of family.checks) record({ family: family.name, check: check.name, status: 'skipped', ms: 0, message: `needs ${unmet.join(', ')}` });
      continue;
    }
    for (const check of family.checks) {
      ctx.http.family = family.name;
      ctx.http.check = check.name;
      const started = performance.now();
      try {
        await check.run(ctx);
        record({ family: family.name, check: check.name, status: 'passed', ms: Math.round(performance.now() - started) });
      } catch (err) {
        const ms = Math.round(performance.now() - started);
        // How the suite was called is wrong, not the deployment: stop with exit code 2.
        if (err instanceof ConfigError) throw err;
        if (err instanceof CheckSkipped) {
          record({ family: family.name, check: check.name, status: 'skipped', ms, message: err.message });
        } else if (err instanceof CheckFailure) {
          record({
            family: family.name,
            check: check.name,
            status: 'failed',
            ms,
            message: failureReport(err),
            ...(err.counterexample !== undefined ? { counterexample: err.counterexample } : {}),
            ...(err.seed !== undefined ? { seed: err.seed } : {}),
          });
        } else {
          record({ family: family.name, check: check.name, status: 'failed', ms, message: `check crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}` });
        }
      }
    }
  }
  return results;
}
