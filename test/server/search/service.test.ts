// The search service over a real store: built from the listed inventory on first use, kept
// current by committed sales, refunds and replacements, never answering a name that is not listed.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateInventory } from '../../../server/inventory/generate.ts';
import type { InventoryRow } from '../../../server/inventory/types.ts';
import {
  createDomainSearchService,
  storeListingSource,
  type DomainSearchService,
} from '../../../server/search/index.ts';
import { secretBox } from '../../../server/security/secret-box.ts';
import { createStore, type Store } from '../../../server/store/index.ts';
import { testDatabases } from '../inventory/databases.ts';

const row = (domain: string, price_cents = 100_000): InventoryRow => {
  const dot = domain.indexOf('.');
  return {
    domain,
    label: domain.slice(0, dot),
    tld: domain.slice(dot + 1),
    price_cents,
    floor_cents: price_cents / 2,
    currency: 'USD',
    category: 'food-and-drink',
    keywords: [],
    listed_at: 1_700_000_000_000,
  };
};

for (const database of testDatabases()) {
  describe.skipIf(!database.available)(`the search service on ${database.name}`, () => {
    let store: Store;
    let service: DomainSearchService;
    const found = async (q: string, environment = 'sandbox') =>
      (await service.search(environment, q)).map((r) => r.domain);

    beforeAll(async () => {
      store = createStore(await database.open(), secretBox(randomBytes(32)));
      await store.inventory.replaceEnvironment('sandbox', generateInventory({ size: 400, seed: 5 }));
      await store.inventory.replaceEnvironment('live', [row('espressoworks.com'), row('teakettle.com')]);
      service = createDomainSearchService(storeListingSource(store));
    });
    afterAll(async () => {
      service.close();
      await store.close();
    });

    it('builds each environment from its own listed inventory', async () => {
      const sandbox = await service.search('sandbox', 'bestcoffeebeans.com');
      expect(sandbox[0]).toMatchObject({
        domain: 'bestcoffeebeans.com',
        available: true,
        price_cents: 250_000,
        currency: 'USD',
        score: 1,
        category: 'food-and-drink',
      });
      expect(await found('espresso', 'live')).toEqual(['espressoworks.com']);
      expect(await found('kettle', 'live')).toEqual(['teakettle.com']);
      expect(await found('espressoworks')).not.toContain('espressoworks.com');
    });

    it('drops a name sold in a committed transaction, keeps it when the transaction rolls back', async () => {
      expect(await found('brewhouse')).toContain('brewhouse.io');
      await expect(
        store.transaction(async (tx) => {
          expect(await tx.inventory.markSold('sandbox', 'brewhouse.io')).toBe(true);
          throw new Error('the order insert failed');
        }),
      ).rejects.toThrow('the order insert failed');
      expect(await found('brewhouse')).toContain('brewhouse.io');

      await store.transaction((tx) => tx.inventory.markSold('sandbox', 'brewhouse.io'));
      expect(await found('brewhouse')).not.toContain('brewhouse.io');

      await store.transaction((tx) => tx.inventory.markListed('sandbox', 'brewhouse.io'));
      expect((await found('brewhouse'))[0]).toBe('brewhouse.io');
    });

    it('never answers a name the store no longer lists, even when the index was not told', async () => {
      // Another instance (or a hand edit) sold it: no notice reaches this one.
      await store.db
        .updateTable('inventory')
        .set({ status: 'sold' })
        .where('environment', '=', 'sandbox')
        .where('domain', '=', 'baristabar.com')
        .execute();
      expect(await found('baristabar')).not.toContain('baristabar.com');
      await store.db
        .updateTable('inventory')
        .set({ status: 'listed' })
        .where('environment', '=', 'sandbox')
        .where('domain', '=', 'baristabar.com')
        .execute();
    });

    it('starts over when the environment is replaced', async () => {
      await store.inventory.replaceEnvironment('live', [row('lanternworks.io'), row('espressoworks.com', 50_000)]);
      expect(await found('lantern', 'live')).toEqual(['lanternworks.io']);
      expect((await service.search('live', 'espressoworks.com'))[0]?.price_cents).toBe(50_000);
      expect(await found('teakettle', 'live')).not.toContain('teakettle.com');
    });

    it('applies a change that lands while the index is being built', async () => {
      const fresh = createDomainSearchService(storeListingSource(store));
      const warming = fresh.warm('sandbox');
      await store.transaction((tx) => tx.inventory.markSold('sandbox', 'freshroast.co'));
      await warming;
      expect((await fresh.search('sandbox', 'freshroast')).map((r) => r.domain)).not.toContain('freshroast.co');
      fresh.close();
      await store.transaction((tx) => tx.inventory.markListed('sandbox', 'freshroast.co'));
    });

    it('marks a name another partner holds as unavailable and lowers it', async () => {
      const open = await service.search('sandbox', 'coffee');
      const first = open[0];
      expect(first).toBeDefined();
      const held = await service.search('sandbox', 'coffee', {
        isReserved: async (listing) => listing.domain === first?.domain,
      });
      const mine = held.find((r) => r.domain === first?.domain);
      expect(mine?.available).toBe(false);
      expect(mine?.score).toBeCloseTo((first?.score ?? 0) * 0.9, 4);
      expect(held.filter((r) => r.domain !== first?.domain).every((r) => r.available)).toBe(true);
      for (let i = 1; i < held.length; i++) expect(held[i]?.score).toBeLessThanOrEqual(held[i - 1]?.score ?? 1);
    });
  });
}
