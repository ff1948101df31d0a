// SQLite writes whole-number LIMITs into the SQL text (server/store/inline-limits.ts); the
// answers are those of the bound form, and everything else stays bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../server/store/database.ts';

describe('inline LIMITs on SQLite', () => {
  let opened: OpenedDatabase;
  beforeAll(async () => {
    opened = await openDatabase({ filename: ':memory:' });
    await opened.db
      .insertInto('partners')
      .values(
        Array.from({ length: 7 }, (_, i) => ({
          id: `p${i}`,
          environment: 'sandbox' as const,
          clock_offset_ms: 0,
          created_at: i,
        })),
      )
      .execute();
  });
  afterAll(() => opened.close());

  it('writes a whole-number limit into the text, in subqueries too, and keeps the offset bound', async () => {
    const query = opened.db
      .selectFrom('partners')
      .select('id')
      .where('id', 'in', (eb) => eb.selectFrom('partners').select('id').orderBy('id').limit(5))
      .orderBy('id', 'desc')
      .limit(3)
      .offset(1);
    const compiled = query.compile();
    expect(compiled.sql).toMatch(/limit 5\)/);
    expect(compiled.sql).toMatch(/limit 3 offset \?$/);
    expect(compiled.parameters).toEqual([1]);
    expect((await query.execute()).map((r) => r.id)).toEqual(['p3', 'p2', 'p1']);
  });

  it('leaves a limit bound when it is not a whole number in range, and such a query still runs', async () => {
    for (const limit of [1001, 2.5]) {
      const query = opened.db.selectFrom('partners').select('id').orderBy('id').limit(limit);
      expect(query.compile().sql).toMatch(/limit \?$/);
      expect(query.compile().parameters).toEqual([limit]);
    }
    expect(await opened.db.selectFrom('partners').select('id').orderBy('id').limit(1001).execute()).toHaveLength(7);
  });
});
