// The rule coverage (conformance/rule-coverage.ts): every `x-` extension present in the three
// documents is listed, with the requirements that exercise it or a stated gap or exclusion;
// every requirement named is live; `--list` prints it; the README's section is generated from it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_FAMILIES } from '../../conformance/families/index.ts';
import { coverageCounts, listing } from '../../conformance/requirements.ts';
import { EXTENSION_RULES, SEED_RULES, type Api } from '../../conformance/rule-coverage.ts';
import { ROOT } from '../../scripts/contract.ts';
import { README, withCoverage } from '../../scripts/conformance-rule-coverage.ts';

const APIS: Api[] = ['partner', 'public', 'admin'];

/** Every `x-` member name anywhere in a bundled document. */
function extensionsOf(api: Api): Set<string> {
  const doc = JSON.parse(readFileSync(join(ROOT, `generated/${api}.openapi.json`), 'utf8')) as unknown;
  const names = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        if (k.startsWith('x-')) names.add(k);
        walk(x);
      }
  };
  walk(doc);
  return names;
}

describe('rule coverage', () => {
  it('lists every x- extension present in the documents, and none they do not have (a new x- rule needs a line)', () => {
    for (const api of APIS) {
      const present = [...extensionsOf(api)].sort();
      const listed = EXTENSION_RULES.filter((r) => r.api === api).map((r) => r.extension);
      expect(
        present.filter((x) => !listed.includes(x)),
        `${api}: x- extensions with no line in conformance/rule-coverage.ts`,
      ).toEqual([]);
      expect(
        listed.filter((x) => !present.includes(x)),
        `${api}: lines for x- extensions the document does not have`,
      ).toEqual([]);
      expect(new Set(listed).size, `${api}: an extension listed twice`).toBe(listed.length);
    }
  });

  it('names only live requirements, and each rule has requirements or exactly one stated gap or exclusion', () => {
    const live = new Set(ALL_FAMILIES.flatMap((f) => f.checks.map((c) => c.id)));
    const bad: string[] = [];
    for (const r of [...EXTENSION_RULES, ...SEED_RULES]) {
      const name = 'extension' in r ? `${r.api} ${r.extension}` : `${r.section}: ${r.rule}`;
      for (const id of r.requirements) if (!live.has(id)) bad.push(`${name}: ${id} is not a live requirement`);
      const reasons = [r.gap, r.excluded].filter((x) => x !== undefined);
      if (r.requirements.length === 0 && reasons.length !== 1) bad.push(`${name}: no requirement and no one reason`);
      if (r.requirements.length > 0 && reasons.length > 0) bad.push(`${name}: requirements and a gap or exclusion`);
      if (reasons.some((x) => x.trim() === '')) bad.push(`${name}: an empty reason`);
    }
    for (const r of SEED_RULES)
      if (!r.section.startsWith(`seed:${r.seed} › `)) bad.push(`${r.section}: not a seed:${r.seed} section`);
    expect(bad).toEqual([]);
    const counts = coverageCounts();
    expect(counts.exercised + counts.gaps + counts.excluded).toBe(counts.rules);
    expect(counts.exercised).toBeGreaterThan(counts.gaps + counts.excluded);
  });

  it('--list prints the coverage after the requirements, gaps and exclusions with their reasons', () => {
    const text = listing(ALL_FAMILIES);
    expect(text).toMatch(/\nrule coverage: \d+ rules .*: \d+ exercised, \d+ gaps, \d+ excluded\n/);
    expect(text).toContain('  partner x-signing: partner.auth.canonical-query.accepted, ');
    expect(text).toContain('  public x-trusted-hosts: excluded: ');
    expect(text).toContain('  public x-signin-throttle: excluded: ');
    expect(text).toContain(
      '  seed:public › Endpoints › Public REST: "next_cursor is also returned on offset pages, so the caller may switch styles"\n      public.listings.offset-next-cursor',
    );
  });

  it("the README's rule coverage section is the data's (npx tsx scripts/conformance-rule-coverage.ts rewrites it)", () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme).toBe(withCoverage(readme));
    expect(readme).toContain('- public `x-pkce`: `public.oauth.flow`, ');
  });
});
