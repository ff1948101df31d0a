import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateInventory } from '../../../server/inventory/generate.ts';
import { entryToRow } from '../../../server/inventory/import.ts';
import type { InventoryRow } from '../../../server/inventory/types.ts';
import type { OpenedDatabase } from '../../../server/store/database.ts';
import { inventoryRepository, MAX_BATCH_SIZE, type InventoryRepository } from '../../../server/store/inventory.ts';
import { testDatabases } from './databases.ts';

const LISTED_AT = Date.parse('2026-01-01T00:00:00Z');
const row = (domain: string, price = 10_000, floor = 6_000): InventoryRow =>
  entryToRow({ domain, price_cents: price, floor_cents: floor }, LISTED_AT);

async function* slowly<T>(rows: Iterable<T>, failAfter?: number): AsyncGenerator<T> {
  let n = 0;
  for (const r of rows) {
    if (failAfter !== undefined && n === failAfter) throw new Error('the source broke');
    await Promise.resolve();
    n++;
    yield r;
  }
}

for (const database of testDatabases()) {
  describe.skipIf(!database.available)(`inventory repository on ${database.name}`, () => {
    let opened: OpenedDatabase;
    let repo: InventoryRepository;

    beforeAll(async () => {
      opened = await database.open();
      repo = inventoryRepository(opened.db);
    });
    afterAll(async () => {
      await opened?.close();
    });
    beforeEach(async () => {
      await opened.db.deleteFrom('inventory').execute();
    });

    it('writes, counts and reads back rows', async () => {
      expect(await repo.isEmpty('sandbox')).toBe(true);
      const result = await repo.replaceEnvironment('sandbox', generateInventory({ size: 1200, seed: 4 }), {
        batchSize: 250,
      });
      expect(result).toEqual({ written: 1200, keptSold: 0 });
      expect(await repo.count('sandbox')).toBe(1200);
      expect(await repo.isEmpty('sandbox')).toBe(false);
      expect(await repo.find('sandbox', 'bestcoffeebeans.com')).toEqual({
        environment: 'sandbox',
        domain: 'bestcoffeebeans.com',
        label: 'bestcoffeebeans',
        tld: 'com',
        price_cents: 250_000,
        floor_cents: 200_000,
        currency: 'USD',
        status: 'listed',
        category: 'food-and-drink',
        keywords: ['coffee', 'beans', 'best'],
        listed_at: Date.parse('2026-06-02T08:00:00Z'),
        reservation: null,
      });
      expect(await repo.find('sandbox', 'no-such-name.com')).toBeUndefined();
    });

    it('accepts async sources and any batch size', async () => {
      for (const batchSize of [1, 7, MAX_BATCH_SIZE * 10]) {
        const { written } = await repo.replaceEnvironment(
          'sandbox',
          slowly(generateInventory({ size: 333, seed: 8 })),
          { batchSize },
        );
        expect(written).toBe(333);
        expect(await repo.count('sandbox')).toBe(333);
      }
    });

    it('keeps live and sandbox apart', async () => {
      await repo.replaceEnvironment('sandbox', [row('shared.com', 100_000, 60_000), row('sandboxonly.com')]);
      await repo.replaceEnvironment('live', [row('shared.com', 900_000, 500_000), row('liveonly.com')]);
      expect((await repo.find('sandbox', 'shared.com'))?.price_cents).toBe(100_000);
      expect((await repo.find('live', 'shared.com'))?.price_cents).toBe(900_000);
      expect(await repo.find('sandbox', 'liveonly.com')).toBeUndefined();
      expect(await repo.find('live', 'sandboxonly.com')).toBeUndefined();
      expect((await repo.keywordSearch('sandbox', 'liveonly', 5)).map((h) => h.domain)).toEqual([]);
      expect((await repo.keywordSearch('live', 'liveonly', 5)).map((h) => h.domain)).toEqual(['liveonly.com']);
      expect((await repo.keywordSearch('sandbox', 'shared', 5)).map((h) => [h.environment, h.price_cents])).toEqual([
        ['sandbox', 100_000],
      ]);

      // Replacing one environment leaves the other alone.
      await repo.replaceEnvironment('sandbox', [row('fresh.com')]);
      expect(await repo.count('sandbox')).toBe(1);
      expect(await repo.count('live')).toBe(2);

      // Selling in one environment sells nothing in the other.
      expect(await repo.markSold('live', 'shared.com')).toBe(true);
      await repo.replaceEnvironment('sandbox', [row('shared.com')]);
      expect((await repo.find('sandbox', 'shared.com'))?.status).toBe('listed');
      expect(await repo.markSold('sandbox', 'liveonly.com')).toBe(false);
      expect((await repo.find('live', 'liveonly.com'))?.status).toBe('listed');
    });

    describe('replaceEnvironment is atomic', () => {
      const original = [row('keepme.com', 50_000, 40_000), row('alsokept.io')];
      const assertOriginal = async () => {
        expect(await repo.count('sandbox')).toBe(2);
        expect((await repo.find('sandbox', 'keepme.com'))?.price_cents).toBe(50_000);
        expect(await repo.find('sandbox', 'bestcoffeebeans.com')).toBeUndefined();
      };

      beforeEach(async () => {
        await repo.replaceEnvironment('sandbox', original);
      });

      it('keeps the previous inventory when a row mid-batch is invalid', async () => {
        const rows = [...generateInventory({ size: 250, seed: 2 })];
        rows.splice(170, 0, { ...row('broken.com'), floor_cents: 20_000, price_cents: 10_000 });
        await expect(repo.replaceEnvironment('sandbox', rows, { batchSize: 100 })).rejects.toThrow(/floor/);
        await assertOriginal();
      });

      it('keeps the previous inventory when the database refuses a row mid-batch', async () => {
        const rows = [...generateInventory({ size: 250, seed: 2 })];
        // The same domain twice breaks the primary key inside the second batch.
        rows.splice(150, 0, { ...(rows[120] as InventoryRow) });
        await expect(repo.replaceEnvironment('sandbox', rows, { batchSize: 100 })).rejects.toThrow();
        await assertOriginal();
      });

      it('keeps the previous inventory when the source fails half way', async () => {
        await expect(
          repo.replaceEnvironment('sandbox', slowly(generateInventory({ size: 500, seed: 2 }), 260), {
            batchSize: 100,
          }),
        ).rejects.toThrow('the source broke');
        await assertOriginal();
      });
    });

    /** A quote's reservation, as orders.ts `reserveListing` writes it on the row. */
    const reserve = (environment: 'live' | 'sandbox', domain: string, partnerId: string, until: number) =>
      opened.db
        .updateTable('inventory')
        .set({ reserved_by: partnerId, reserved_until: until })
        .where('environment', '=', environment)
        .where('domain', '=', domain)
        .execute();

    it('with preserve, keeps listed_at, sold status and reservation of domains already there', async () => {
      await repo.replaceEnvironment('live', [row('sold.com'), row('listed.com'), row('dropped.com')]);
      await repo.markSold('live', 'sold.com');
      await reserve('live', 'listed.com', 'ptn_q', LISTED_AT + 600_000);
      const later = LISTED_AT + 86_400_000;
      const next = ['sold.com', 'listed.com', 'new.com'].map((d) =>
        entryToRow({ domain: d, price_cents: 20_000, floor_cents: 10_000 }, later),
      );
      expect(await repo.replaceEnvironment('live', next, { preserve: true })).toEqual({ written: 3, keptSold: 1 });
      expect(await repo.find('live', 'sold.com')).toMatchObject({
        status: 'sold',
        listed_at: LISTED_AT,
        price_cents: 20_000,
      });
      expect(await repo.find('live', 'listed.com')).toMatchObject({
        status: 'listed',
        listed_at: LISTED_AT,
        price_cents: 20_000,
        reservation: { partnerId: 'ptn_q', endsAt: LISTED_AT + 600_000 },
      });
      expect(await repo.find('live', 'new.com')).toMatchObject({
        status: 'listed',
        listed_at: later,
        reservation: null,
      });
      expect(await repo.find('live', 'dropped.com')).toBeUndefined();
      // Without preserve, the rows are written as given.
      await repo.replaceEnvironment('live', next);
      expect(await repo.find('live', 'sold.com')).toMatchObject({ status: 'listed', listed_at: later });
      expect(await repo.find('live', 'listed.com')).toMatchObject({ reservation: null });
    });

    it('markSold and markListed move only between the two states', async () => {
      await repo.replaceEnvironment('sandbox', [row('a-name.com')]);
      expect(await repo.markListed('sandbox', 'a-name.com')).toBe(false);
      expect(await repo.markSold('sandbox', 'a-name.com')).toBe(true);
      expect(await repo.markSold('sandbox', 'a-name.com')).toBe(false);
      expect((await repo.find('sandbox', 'a-name.com'))?.status).toBe('sold');
      expect(await repo.markListed('sandbox', 'a-name.com')).toBe(true);
      expect((await repo.find('sandbox', 'a-name.com'))?.status).toBe('listed');
      expect(await repo.markSold('sandbox', 'absent.com')).toBe(false);
    });

    it("markSold for a partner's sale refuses while another partner's reservation holds the row", async () => {
      await repo.replaceEnvironment('sandbox', [row('held.com')]);
      const until = LISTED_AT + 600_000;
      await reserve('sandbox', 'held.com', 'ptn_q', until);
      // Another partner, before the end (no partners row: a test clock of 0).
      expect(await repo.markSold('sandbox', 'held.com', { partnerId: 'ptn_other', now: until - 1 })).toBe(false);
      // The reserving partner itself.
      expect(await repo.markSold('sandbox', 'held.com', { partnerId: 'ptn_q', now: until - 1 })).toBe(true);
      await repo.markListed('sandbox', 'held.com');
      // Another partner, once the reservation has ended.
      expect(await repo.markSold('sandbox', 'held.com', { partnerId: 'ptn_other', now: until })).toBe(true);
    });

    describe('keywordSearch', () => {
      beforeEach(async () => {
        await repo.replaceEnvironment('sandbox', generateInventory({ size: 3000, seed: 1 }));
      });

      it('puts the exact domain, then the exact label, first', async () => {
        const byDomain = await repo.keywordSearch('sandbox', 'bestcoffeebeans.com', 5);
        expect(byDomain[0]?.domain).toBe('bestcoffeebeans.com');
        expect(byDomain[0]?.score).toBe(1);
        const byWords = await repo.keywordSearch('sandbox', 'Best Coffee Beans', 5);
        expect(byWords[0]?.domain).toBe('bestcoffeebeans.com');
        const byLabel = await repo.keywordSearch('sandbox', 'brewhouse', 5);
        expect(byLabel[0]?.domain).toBe('brewhouse.io');
      });

      it('then finds labels containing the query words, best covered first, with scores from 0 to 1 descending', async () => {
        const hits = await repo.keywordSearch('sandbox', 'coffee beans', 5);
        expect(hits.length).toBe(5);
        for (const h of hits)
          expect(h.label.includes('coffee') || h.label.includes('beans') || h.keywords.includes('coffee')).toBe(true);
        const scores = hits.map((h) => h.score);
        expect([...scores].sort((a, b) => b - a)).toEqual(scores);
        for (const s of scores) {
          expect(s).toBeGreaterThanOrEqual(0);
          expect(s).toBeLessThanOrEqual(1);
        }
      });

      it('is deterministic, honours the limit and ties by shorter label, then domain', async () => {
        const a = await repo.keywordSearch('sandbox', 'coffee', 50);
        const b = await repo.keywordSearch('sandbox', 'coffee', 50);
        expect(a.map((h) => h.domain)).toEqual(b.map((h) => h.domain));
        expect(a.length).toBeLessThanOrEqual(50);
        expect(a.length).toBeGreaterThan(10);
        for (let i = 1; i < a.length; i++) {
          const prev = a[i - 1];
          const cur = a[i];
          if (!prev || !cur || prev.score !== cur.score) continue;
          expect(
            prev.label.length < cur.label.length ||
              (prev.label.length === cur.label.length && prev.domain < cur.domain),
          ).toBe(true);
        }
        expect(await repo.keywordSearch('sandbox', 'coffee', 3)).toHaveLength(3);
        expect(await repo.keywordSearch('sandbox', 'coffee', 0)).toEqual([]);
      });

      it('returns listed rows only, and nothing for no match or no words', async () => {
        await repo.markSold('sandbox', 'brewhouse.io');
        expect((await repo.keywordSearch('sandbox', 'brewhouse', 5)).map((h) => h.domain)).not.toContain(
          'brewhouse.io',
        );
        expect(await repo.keywordSearch('sandbox', 'zzqxv', 5)).toEqual([]);
        expect(await repo.keywordSearch('sandbox', '  %_ !! ', 5)).toEqual([]);
      });

      it('treats LIKE wildcards in the query as text', async () => {
        expect(await repo.keywordSearch('sandbox', '%', 5)).toEqual([]);
        expect(await repo.keywordSearch('sandbox', '_', 5)).toEqual([]);
      });
    });

    it('writes 100,000 rows in seconds', async () => {
      const started = performance.now();
      const { written } = await repo.replaceEnvironment('sandbox', generateInventory({ size: 100_000, seed: 1 }));
      const ms = performance.now() - started;
      expect(written).toBe(100_000);
      expect(await repo.count('sandbox')).toBe(100_000);
      expect(ms).toBeLessThan(20_000);
    }, 60_000);
  });
}
