// npm run drill [-- --quick] [-- --only fuzz,crash,instances,receiver,soak,slow,security] [-- --soak-minutes 10]
//               [-- --fuzz-requests 20000 --seed 1 --out bench/drill-results.json]
// npm run drill -- security [--quick]   (drill names may also be given as arguments)
// The reliability drills, each bounded in time and on loopback only. Exit 0 when every drill
// passed, 1 otherwise; the figures go to the console and to JSON.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../bench/lib/processes.ts';
import { crashDrill } from './crash.ts';
import { fuzzDrill } from './fuzz.ts';
import { instancesDrill } from './instances.ts';
import type { DrillResult } from './lib.ts';
import { receiverDrill } from './receiver-down.ts';
import { securityDrill } from './security.ts';
import { slowClientsDrill } from './slow-clients.ts';
import { soakDrill } from './soak.ts';

const DRILLS = ['fuzz', 'crash', 'instances', 'receiver', 'slow', 'soak', 'security'] as const;
type Drill = (typeof DRILLS)[number];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'soak-minutes': { type: 'string' },
    'fuzz-requests': { type: 'string' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: join(ROOT, 'bench', 'drill-results.json') },
  },
});
const quick = values.quick ?? false;
const named = [...(values.only ? values.only.split(',') : []), ...positionals];
const only = new Set<Drill>(
  (named.length > 0 ? named : DRILLS).map((d) => {
    if (!DRILLS.includes(d as Drill)) throw new Error(`--only: unknown drill "${d}" (one of ${DRILLS.join(', ')})`);
    return d as Drill;
  }),
);
const log = (line: string) => console.error(line);
const base = { quick, log };

const runners: Record<Drill, () => Promise<DrillResult>> = {
  fuzz: () => fuzzDrill({ ...base, requests: Number(values['fuzz-requests'] ?? 20_000), seed: Number(values.seed) }),
  crash: () => crashDrill(base),
  instances: () => instancesDrill(base),
  receiver: () => receiverDrill(base),
  slow: () => slowClientsDrill(base),
  soak: () => soakDrill({ ...base, minutes: Number(values['soak-minutes'] ?? (quick ? 1 : 10)) }),
  security: () => securityDrill(base),
};

const results: DrillResult[] = [];
for (const name of DRILLS) {
  if (!only.has(name)) continue;
  log(`\n== drill: ${name}`);
  const result = await runners[name]();
  results.push(result);
  log(
    `${result.skipped ? 'SKIPPED' : result.ok ? 'PASS' : 'FAIL'} ${name} in ${result.seconds.toFixed(1)} s${result.skipped ? `: ${result.skipped}` : ''}`,
  );
  for (const f of result.failures) log(`  ✗ ${f}`);
}

console.log('\ndrill results:');
for (const r of results) {
  const { perOperation: _skip, ...shown } = r.figures;
  console.log(
    `  ${r.skipped ? 'SKIPPED' : r.ok ? 'PASS' : 'FAIL'}  ${r.name.padEnd(10)} ${r.seconds.toFixed(1).padStart(7)} s  ${JSON.stringify(shown)}`,
  );
}
const out = resolve(values.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ finishedAt: new Date().toISOString(), quick, results }, null, 2)}\n`);
console.log(`\nresults: ${out}`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
