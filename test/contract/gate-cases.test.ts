// Runs the breaking-change gate's own case list (scripts/contract-diff-cases.ts): each case edits
// a copy of the real bundled document once and must get its verdict from the gate's core
// (diffApi: redocly diff, the gate's own rules, the `x-` extension rules). Every `x-` extension in
// the three documents must have a rule and at least one case, so a new extension cannot ship
// unclassified.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { APIS, bundlePath, type ApiName } from '../../scripts/contract.ts';
import { diffApi } from '../../scripts/contract-diff.ts';
import { CASES } from '../../scripts/contract-diff-cases.ts';
import { EXTENSION_RULES, extensionsOf } from '../../scripts/contract-diff-extensions.ts';

const load = (api: ApiName) => JSON.parse(readFileSync(bundlePath(api), 'utf8')) as Record<string, unknown>;
const ORIGINAL = Object.fromEntries(APIS.map((api) => [api, load(api)])) as Record<ApiName, Record<string, unknown>>;
const outcomes: Array<{ breaking: boolean; flagged: boolean }> = [];

describe('the gate on its case list', () => {
  it.concurrent.each(CASES.map((c) => [`${c.anchor}: ${c.what} (${c.api})`, c] as const))(
    '%s',
    async (_name, c) => {
      const revision = structuredClone(ORIGINAL[c.api]);
      c.edit(revision);
      expect(revision, 'the edit changes the document').not.toEqual(ORIGINAL[c.api]);
      const d = await diffApi(c.api, ORIGINAL[c.api], revision);
      // The admin API is reported, never gated: its breaking changes are listed all the same.
      const flagged = d.changes.some((x) => x.breaking && !x.accepted);
      outcomes.push({ breaking: c.breaking, flagged });
      expect(
        flagged,
        `expected ${c.breaking ? 'breaking' : 'compatible'}; the gate said:\n${d.changes.map((x) => `  ${x.breaking ? 'BREAKING' : x.impact} ${x.where}: ${x.message}`).join('\n') || '  nothing'}`,
      ).toBe(c.breaking);
    },
    120_000,
  );

  afterAll(() => {
    const breaking = outcomes.filter((o) => o.breaking);
    const compatible = outcomes.filter((o) => !o.breaking);
    console.log(
      `gate case list: recall ${breaking.filter((o) => o.flagged).length}/${breaking.length} breaking edits caught, ` +
        `${compatible.filter((o) => o.flagged).length}/${compatible.length} compatible edits flagged`,
    );
  });
});

describe('the x- extensions', () => {
  const names = new Set(APIS.flatMap((api) => [...extensionsOf(ORIGINAL[api]).values()].map((x) => x.name)));

  it('each has a rule in the gate', () => {
    expect([...names].filter((n) => !(n in EXTENSION_RULES))).toEqual([]);
  });

  it('each has at least one case in the list', () => {
    const covered = new Set(CASES.map((c) => c.anchor));
    expect([...names].filter((n) => !covered.has(n))).toEqual([]);
  });

  it('an unknown extension that changes fails the gate', async () => {
    const base = structuredClone(ORIGINAL.partner);
    base['x-new-promise'] = { limit: 5 };
    const revision = structuredClone(base);
    revision['x-new-promise'] = { limit: 10 };
    const d = await diffApi('partner', base, revision);
    expect(d.breaking.map((c) => c.message).join('\n')).toMatch(/x-new-promise.*no rule/);
  });
});
