// Reports: a console summary with counts per family, JUnit XML for CI, JSON for tools (and the
// input of --baseline). Every one names each check by its requirement ID and carries the rules.
import type { Coverage } from './coverage.ts';
import type { CheckResult } from './runner.ts';

/** The command that reruns one check: `prefix` is how the kit was invoked (invocation.ts). */
export function rerunCommand(
  prefix: string | undefined,
  meta: { baseUrl: string; seed: number; numRuns: number },
  r: Pick<CheckResult, 'id' | 'seed'>,
): string {
  return `${prefix ?? 'npm run conformance --'} --base-url ${meta.baseUrl} --only ${r.id} --seed ${r.seed ?? meta.seed} --num-runs ${meta.numRuns}`;
}

/** What a result counts as once a baseline is applied. */
export type Outcome = 'passed' | 'failed' | 'known' | 'stale' | 'skipped';

export function outcomeOf(r: CheckResult): Outcome {
  if (r.baseline?.verdict === 'known') return 'known';
  if (r.baseline?.verdict === 'stale') return 'stale';
  return r.status;
}

export function summaryByFamily(results: CheckResult[]): Array<{ family: string } & Record<Outcome, number>> {
  const families = new Map<string, Record<Outcome, number>>();
  for (const r of results) {
    const counts = families.get(r.family) ?? { passed: 0, failed: 0, known: 0, stale: 0, skipped: 0 };
    counts[outcomeOf(r)]++;
    families.set(r.family, counts);
  }
  return [...families].map(([family, c]) => ({ family, ...c }));
}

export function counts(results: CheckResult[]): Record<Outcome, number> {
  const c: Record<Outcome, number> = { passed: 0, failed: 0, known: 0, stale: 0, skipped: 0 };
  for (const r of results) c[outcomeOf(r)]++;
  return c;
}

export function consoleSummary(
  results: CheckResult[],
  seconds: number,
  extra: {
    retired?: Array<{ id: string; replacedBy?: string }>;
    waits?: Map<string, number>;
    spent?: Map<string, { total: number; byFamily: Map<string, number> }>;
    /** The command that reruns a failed check. */
    rerun?: (r: CheckResult) => string;
  } = {},
): string {
  const baselined = results.some((r) => r.baseline);
  const lines = ['', `family                 passed  failed  skipped${baselined ? '  known  stale' : ''}`];
  for (const f of summaryByFamily(results)) {
    lines.push(
      `${f.family.padEnd(22)} ${String(f.passed).padStart(6)}  ${String(f.failed).padStart(6)}  ${String(f.skipped).padStart(7)}${baselined ? `  ${String(f.known).padStart(5)}  ${String(f.stale).padStart(5)}` : ''}`,
    );
  }
  for (const r of results.filter((x) => outcomeOf(x) === 'failed'))
    lines.push(
      '',
      `FAILED ${r.id} (${r.family} › ${r.check})`,
      `    rules: ${r.rules.join('; ')}`,
      ...(extra.rerun ? [`    rerun: ${extra.rerun(r)}`] : []),
      indent(r.message ?? ''),
    );
  for (const r of results.filter((x) => outcomeOf(x) === 'stale'))
    lines.push(
      '',
      `STALE ${r.id}: the baseline lists it as failing (${r.baseline?.reason || 'no reason given'}) but it passes now; delete it from the baseline`,
    );
  for (const r of extra.retired ?? [])
    lines.push(
      '',
      `STALE ${r.id}: the baseline lists a retired requirement${r.replacedBy ? ` (now ${r.replacedBy})` : ''}; delete it from the baseline`,
    );
  const known = results.filter((x) => outcomeOf(x) === 'known');
  if (known.length > 0) lines.push('', `known failures (baseline): ${known.map((r) => r.id).join(', ')}`);
  const waited = [...(extra.waits ?? [])].filter(([, ms]) => ms >= 1000).sort((a, b) => b[1] - a[1]);
  if (waited.length > 0)
    lines.push(
      '',
      `waited for rate-limit windows: ${waited.map(([f, ms]) => `${f} ${(ms / 1000).toFixed(0)} s`).join(', ')}`,
    );
  if (extra.spent?.size) {
    lines.push('answers counted per rate-limit policy:');
    for (const [policy, { total, byFamily }] of extra.spent) {
      lines.push(
        `  ${policy} ${total} (${[...byFamily]
          .sort((a, b) => b[1] - a[1])
          .map(([f, n]) => `${f || 'setup'} ${n}`)
          .join(', ')})`,
      );
    }
  }
  const c = counts(results);
  const tail = `${c.known ? `, ${c.known} known` : ''}${c.stale + (extra.retired?.length ?? 0) ? `, ${c.stale + (extra.retired?.length ?? 0)} stale` : ''}`;
  lines.push(
    '',
    `conformance: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped${tail} (${seconds.toFixed(1)} s)`,
  );
  return lines.join('\n');
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

// Control characters are not allowed in XML 1.0, so they are dropped.
const xml = (text: string) =>
  text
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** The coverage figures as JUnit properties of the whole run. */
function coverageProperties(c: Coverage | undefined): string {
  if (!c) return '';
  const props: Array<[string, string]> = [
    ['coverage.operation-status-pairs', `${c.pairs.exercised}/${c.pairs.total}`],
    ['coverage.operations', `${c.operationsExercised.exercised}/${c.operationsExercised.total}`],
    ['coverage.webhook-types', `${c.webhooks.exercised}/${c.webhooks.total}`],
    ['coverage.x-rules', `${c.rules.exercised}/${c.rules.total}`],
  ];
  return `  <properties>${props.map(([n, v]) => `<property name="${n}" value="${v}"/>`).join('')}</properties>\n`;
}

export function junitReport(results: CheckResult[], coverage?: Coverage): string {
  const suites = summaryByFamily(results).map(({ family, failed, stale, skipped, known }) => {
    const cases = results
      .filter((r) => r.family === family)
      .map((r) => {
        const outcome = outcomeOf(r);
        const inner =
          outcome === 'failed'
            ? `<failure message="${xml((r.message ?? '').split('\n')[0] ?? '')}">${xml(r.message ?? '')}</failure>`
            : outcome === 'stale'
              ? `<failure message="stale baseline entry: the check passes now">${xml(`delete ${r.id} from the baseline (${r.baseline?.reason ?? ''})`)}</failure>`
              : outcome === 'known'
                ? `<skipped message="${xml(`known failure (baseline): ${r.baseline?.reason ?? ''}`)}"/>`
                : outcome === 'skipped'
                  ? `<skipped message="${xml(r.message ?? '')}"/>`
                  : '';
        const properties = `<properties><property name="id" value="${xml(r.id)}"/>${r.rules.map((rule) => `<property name="rule" value="${xml(rule)}"/>`).join('')}</properties>`;
        return `    <testcase classname="conformance.${xml(family)}" name="${xml(`${r.id}: ${r.check}`)}" time="${(r.ms / 1000).toFixed(3)}">${properties}${inner}</testcase>`;
      });
    const time = results.filter((r) => r.family === family).reduce((s, r) => s + r.ms, 0) / 1000;
    return `  <testsuite name="${xml(family)}" tests="${cases.length}" failures="${failed + stale}" skipped="${skipped + known}" time="${time.toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  const c = counts(results);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="conformance" tests="${results.length}" failures="${c.failed + c.stale}">\n${coverageProperties(coverage)}${suites.join('\n')}\n</testsuites>\n`;
}

/** The JSON report: also a valid --baseline (its failed checks are the known failures). */
export function jsonReport(results: CheckResult[], meta: Record<string, unknown>): string {
  const checks = results.map(({ evidence: _evidence, ...r }) => r);
  return `${JSON.stringify({ ...meta, summary: summaryByFamily(results), checks }, null, 2)}\n`;
}
