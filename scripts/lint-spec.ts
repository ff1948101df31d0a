// npm run lint:spec — Redocly lint of the three APIs with redocly.yaml's rules, then Spectral
// (spectral:oas and the reviewed OWASP ruleset of spectral.ruleset.mjs) on the bundled documents.
// `redocly lint` exits 0 on warnings; the contract allows none, so this fails on any problem.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { APIS, ROOT, type ApiName } from './contract.ts';
import { reportSpectral } from './lint-spectral.ts';

const run = promisify(execFile);

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{
    ruleId: string;
    severity: string;
    message: string;
    location: Array<{ source?: { ref?: string }; pointer?: string }>;
  }>;
}

async function lint(api: ApiName): Promise<LintReport> {
  const args = ['lint', api, '--format=json', '--max-problems=1000'];
  const opts = { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, REDOCLY_TELEMETRY: 'off' } };
  try {
    const { stdout } = await run(join(ROOT, 'node_modules', '.bin', 'redocly'), args, opts);
    return JSON.parse(stdout) as LintReport;
  } catch (err) {
    // Exit code 1 on errors; the JSON report is still on stdout.
    const e = err as { stdout?: string; stderr?: string };
    try {
      return JSON.parse(e.stdout ?? '') as LintReport;
    } catch {
      throw new Error(`redocly lint ${api} did not produce a report:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
    }
  }
}

const reports = await Promise.all(APIS.map(async (api) => [api, await lint(api)] as const));
let problems = 0;
for (const [api, report] of reports) {
  const { errors, warnings } = report.totals;
  problems += errors + warnings;
  console.log(`${api}: ${errors} errors, ${warnings} warnings`);
  for (const p of report.problems) {
    const at = p.location[0];
    console.log(`  ${p.severity} ${p.ruleId}: ${p.message}\n    at ${at?.source?.ref ?? '?'}${at?.pointer ?? ''}`);
  }
}
problems += await reportSpectral();
process.exit(problems === 0 ? 0 : 1);
