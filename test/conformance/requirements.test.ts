// Requirement IDs and rules: every check of the kit has a stable, well-formed, unique ID; every
// `spec:` rule names something that exists in the bundled contract; every ID ever published is
// live or retired (so an ID cannot silently disappear or come back with another meaning).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Family } from '../../conformance/context.ts';
import { ALL_FAMILIES } from '../../conformance/families/index.ts';
import { MOCK_FAMILIES } from '../../conformance/families/mock.ts';
import { idProblems, listing, RETIRED, type RetiredRequirement } from '../../conformance/requirements.ts';
import { SpecIndex } from '../../conformance/spec.ts';
import { ROOT } from '../../scripts/contract.ts';

const FAMILIES = [...ALL_FAMILIES, ...MOCK_FAMILIES];
const live = FAMILIES.flatMap((f) => f.checks.map((c) => c.id));
const published = readFileSync(join(ROOT, 'conformance/published-ids.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

describe('requirement IDs', () => {
  it('every check has a well-formed, unique ID that is not a retired one, and names a rule', () => {
    expect(idProblems(FAMILIES)).toEqual([]);
    expect(live.length).toBeGreaterThan(150);
  });

  it('every ID ever published is live or retired, and every live ID is published (append new ones to conformance/published-ids.txt)', () => {
    const retired = new Set(RETIRED.map((r) => r.id));
    expect(published.filter((id) => !live.includes(id) && !retired.has(id))).toEqual([]);
    expect(live.filter((id) => !published.includes(id))).toEqual([]);
  });

  it('finds a duplicate, a malformed ID, a reused retired ID and a check without rules', () => {
    const check = (id: string, rules = ['spec:partner#/x-signing']) => ({ id, name: id, rules, run: async () => {} });
    const family: Family = {
      name: 'f',
      surface: 'partner',
      description: '',
      needs: [],
      checks: [check('a.b'), check('a.b'), check('Not An Id'), check('old.one'), check('c.d', [])],
    };
    const retired: RetiredRequirement[] = [
      { id: 'old.one', title: 'an old check', retiredIn: '0.2.0', reason: 'split in two', replacedBy: 'a.b' },
    ];
    const problems = idProblems([family], retired);
    expect(problems.some((p) => p.includes('ID a.b is also used'))).toBe(true);
    expect(problems.some((p) => p.includes('"Not An Id" is not a dotted lowercase ID'))).toBe(true);
    expect(problems.some((p) => p.includes('old.one is retired'))).toBe(true);
    expect(problems.some((p) => p.includes('names no rule'))).toBe(true);
    expect(listing([family], retired)).toMatch(
      /retired \(1\):\n {2}old\.one +retired in 0\.2\.0: split in two \(now a\.b\)/,
    );
  });

  it('every spec: rule names a node of the bundled contract, and every other rule a seed section', () => {
    const spec = SpecIndex.load();
    const bad: string[] = [];
    for (const f of FAMILIES) {
      for (const c of f.checks) {
        for (const rule of c.rules) {
          if (rule.startsWith('spec:')) {
            if (spec.ruleTarget(rule) === undefined) bad.push(`${c.id}: ${rule} names nothing in the contract`);
          } else if (!/^seed:(partner|public) › \S/.test(rule))
            bad.push(`${c.id}: "${rule}" is neither a spec: nor a seed: rule`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('ruleTarget resolves document and operation pointers and refuses what does not exist', () => {
    const spec = SpecIndex.load();
    expect(spec.ruleTarget('spec:partner#/x-signing/timestamp-skew-seconds')).toBe(300);
    expect(spec.ruleTarget('spec:partner:createQuote#/x-quote-validity-seconds')).toBe(600);
    expect(Object.keys(spec.ruleTarget('spec:admin:applyOrderAction#/x-transitions') as object)).toContain(
      'confirm-delivery',
    );
    expect(spec.ruleTarget('spec:partner#/x-signing/no-such-member')).toBeUndefined();
    expect(spec.ruleTarget('spec:partner:noSuchOperation#/description')).toBeUndefined();
    expect(spec.ruleTarget('seed:partner › Errors')).toBeUndefined();
  });
});
