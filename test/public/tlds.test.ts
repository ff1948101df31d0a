import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../server/http/errors.ts';
import { generateInventory } from '../../server/inventory/generate.ts';
import { createPublicReads } from '../../server/public-api/reads.ts';
import type { PublicReads } from '../../server/public-api/reads-service.ts';
import type { Store } from '../../server/store/index.ts';
import { assertSchema, depsFor, memoryStore } from './support.ts';

let store: Store;
let reads: PublicReads;
beforeAll(async () => {
  store = await memoryStore(0);
  reads = createPublicReads(depsFor(store));
});
afterAll(() => store.close());

const ACTIONS = ['register', 'renew', 'transfer', 'restore'] as const;
const COMMON = ['com', 'net', 'org', 'io', 'dev', 'app', 'ai', 'co', 'de', 'uk'];

/** Every TLD a generated sandbox inventory uses, read from the generator's output. */
function inventoryTlds(): string[] {
  return [...new Set([...generateInventory({ size: 5000, seed: 3 })].map((r) => r.tld))];
}

describe('TLD prices', () => {
  it('covers every TLD of the sandbox inventory and the common ones, all four actions, valid against TldPrice', async () => {
    const tlds = new Set([...inventoryTlds(), ...COMMON]);
    expect(tlds.size).toBeGreaterThan(15);
    for (const tld of tlds) {
      const body = await reads.tldPrice({ tld });
      assertSchema('TldPrice', body);
      expect(body).toMatchObject({ tld, currency: 'USD', term_years: 1 });
      expect(Object.keys(body.prices).sort()).toEqual([...ACTIONS].sort());
      expect(body.prices.register).toEqual(expect.any(Number));
      expect('action' in body).toBe(false);
    }
  });

  it('with an action holds only that price and repeats it as action and price', async () => {
    const all = await reads.tldPrice({ tld: 'io' });
    for (const action of ACTIONS) {
      const one = await reads.tldPrice({ tld: 'io', action });
      assertSchema('TldPrice', one);
      expect(one.prices).toEqual({ [action]: all.prices[action] });
      expect(one.action).toBe(action);
      expect(one.price).toBe(all.prices[action]);
    }
  });

  it('gives null for an action the registry does not offer', async () => {
    const de = await reads.tldPrice({ tld: 'de', action: 'restore' });
    expect(de.price).toBeNull();
    assertSchema('TldPrice', de);
  });

  it('is 404 not_found for an unknown TLD, in both reads', async () => {
    for (const call of [() => reads.tldPrice({ tld: 'zz' }), () => reads.tldMetadata({ tld: 'zz' })]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(404);
      expect((err as ApiError).message).toContain('.zz');
    }
  });
});

describe('TLD metadata', () => {
  it('is valid TldMetadata for every inventory TLD, with consistent ranges', async () => {
    for (const tld of new Set([...inventoryTlds(), ...COMMON])) {
      const body = await reads.tldMetadata({ tld });
      assertSchema('TldMetadata', body);
      expect(body.tld).toBe(tld);
      expect(body.term_years.min).toBeLessThanOrEqual(body.term_years.max);
      expect(body.nameservers.min).toBeLessThanOrEqual(body.nameservers.max);
      // Local presence rules come with a description of who is eligible.
      if (body.organization.local_presence_required) expect(body.organization.eligibility).toEqual(expect.any(String));
    }
  });

  it('knows the rules that set ccTLDs apart', async () => {
    expect((await reads.tldMetadata({ tld: 'de' })).organization.local_presence_required).toBe(true);
    expect((await reads.tldMetadata({ tld: 'us' })).privacy_supported).toBe(false);
    expect((await reads.tldMetadata({ tld: 'ai' })).term_years.min).toBe(2);
    expect((await reads.tldMetadata({ tld: 'com' })).type).toBe('generic');
    expect((await reads.tldMetadata({ tld: 'io' })).type).toBe('country-code');
  });

  it('hands out copies: a caller changing an answer does not change the table', async () => {
    const first = await reads.tldMetadata({ tld: 'com' });
    first.term_years.max = 1;
    expect((await reads.tldMetadata({ tld: 'com' })).term_years.max).toBe(10);
  });
});
