// npm run check:examples [-- partner public admin]
// Bundles each API from spec/ and validates every example against its schema.
import { APIS, bundle, type ApiName } from './contract.ts';
import { countExamples, exampleProblems } from './examples.ts';

const wanted = process.argv.slice(2).filter((a): a is ApiName => (APIS as readonly string[]).includes(a));
let failed = false;
for (const api of wanted.length ? wanted : APIS) {
  const doc = await bundle(api);
  const problems = exampleProblems(doc);
  console.log(`${api}: ${countExamples(doc)} examples, ${problems.length} invalid`);
  for (const p of problems) console.log(`  ${p.pointer}\n    ${p.message}`);
  if (problems.length) failed = true;
}
process.exit(failed ? 1 : 0);
