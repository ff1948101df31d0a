// The `--target mock` profile against real Prism mocks of the partner and public documents
// (what `npm run mock` starts), in static mode (the documents' examples) and in dynamic mode
// (answers generated from the schemas, with a seed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../conformance/run.ts';
import { freePort, startPrism } from '../../scripts/mock.ts';

type Mock = Awaited<ReturnType<typeof startPrism>>;

async function check(api: 'partner' | 'public', url: string) {
  const { results } = await runConformance({ baseUrl: url, target: 'mock', surface: api, seed: 1, numRuns: 1 });
  const failed = results.filter((r) => r.status !== 'passed');
  return { results, failed: failed.map((r) => `${r.check}: ${r.message ?? r.status}`) };
}

/**
 * What dynamic mode (json-schema-faker 0.5.8 inside Prism 5.14) cannot generate from these
 * documents, so the checks of these operations fail there and only there (README, "Mocks"):
 * `prefixItems` tuples (the jCard of WHOIS/RDAP, also inside the batch answer) make Prism answer
 * 500; URLs with a `pattern` (referral links, checkout URLs) come out not matching it.
 */
const DYNAMIC_LIMITS = {
  partner: ['createCheckoutSession', 'listLinks', 'createLink'],
  public: ['whoisLookup', 'runBatch'],
};

describe.each([
  { mode: 'static (examples)', extra: [] as string[], dynamic: false },
  { mode: 'dynamic (-d --seed 7)', extra: ['-d', '--seed', '7'], dynamic: true },
])('conformance --target mock against Prism, $mode', ({ extra, dynamic }) => {
  const mocks: Partial<Record<'partner' | 'public', Mock>> = {};

  beforeAll(async () => {
    const [a, b] = await Promise.all([freePort(), freePort()]);
    [mocks.partner, mocks.public] = await Promise.all([
      startPrism('partner', a, extra),
      startPrism('public', b, extra),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([mocks.partner?.stop(), mocks.public?.stop()]);
  });

  it.each(['partner', 'public'] as const)(
    'the %s mock answers every operation as its document says',
    async (api) => {
      const { results, failed } = await check(api, mocks[api]!.url);
      if (!dynamic) expect(failed).toEqual([]);
      else expect(failed.map((f) => /\((\w+)\)/.exec(f)?.[1]).sort()).toEqual([...DYNAMIC_LIMITS[api]].sort());
      expect(results.length).toBeGreaterThan(20);
    },
    60_000,
  );
});
