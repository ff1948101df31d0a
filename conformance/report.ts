// Reports: a console summary with counts per family, JUnit XML for CI, JSON for tools.
import type { CheckResult } from './runner.ts';

export function summaryByFamily(results: CheckResult[]): Array<{ family: string; passed: number; failed: number; skipped: number }> {
  const families = new Map<string, { passed: number; failed: number; skipped: number }>();
  for (const r of results) {
    const counts = families.get(r.family) ?? { passed: 0, failed: 0, skipped: 0 };
    counts[r.status]++;
    families.set(r.family, counts);
  }
  return [...families].map(([family, c]) => ({ family, ...c }));
}

export function consoleSummary(results: CheckResult[], seconds: number): string {
  const lines = ['', 'family                 passed  failed  skipped'];
  for (const f of summaryByFamily(results)) {
    lines.push(`${f.family.padEnd(22)} ${String(f.passed).padStart(6)}  ${String(f.failed).padStart(6)}  ${String(f.skipped).padStart(7)}`);
  }
  const failed = results.filter((r) => r.status === 'failed');
  for (const r of failed) lines.push('', `FAILED ${r.family} › ${r.check}`, indent(r.message ?? ''));
  const count = (s: string) => results.filter((r) => r.status === s).length;
  lines.push('', `conformance: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped (${seconds.toFixed(1)} s)`);
  return lines.join('\n');
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

const xml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export function junitReport(results: CheckResult[]): string {
  const suites = summaryByFamily(results).map(({ family, failed, skipped }) => {
    const cases = results
      .filter((r) => r.family === family)
      .map((r) => {
        const inner =
          r.status === 'failed'
            ? `<failure message="${xml((r.message ?? '').split('\n')[0] ?? '')}">${xml(r.message ?? '')}</failure>`
            : r.status === 'skipped'
              ? `<skipped message="${xml(r.message ?? '')}"/>`
              : '';
        return `    <testcase classname="conformance.${xml(family)}" name="${xml(r.check)}" time="${(r.ms / 1000).toFixed(3)}">${inner}</testcase>`;
      });
    const time = results.filter((r) => r.family === family).reduce((s, r) => s + r.ms, 0) / 1000;
    return `  <testsuite name="${xml(family)}" tests="${cases.length}" failures="${failed}" skipped="${skipped}" time="${time.toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  const failures = results.filter((r) => r.status === 'failed').length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="conformance" tests="${results.length}" failures="${failures}">\n${suites.join('\n')}\n</testsuites>\n`;
}

export function jsonReport(results: CheckResult[], meta: Record<string, unknown>): string {
  return `${JSON.stringify({ ...meta, summary: summaryByFamily(results), checks: results }, null, 2)}\n`;
}
