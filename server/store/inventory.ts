// The listed domains of each environment. Live and sandbox share the table but never a query:
// every statement here filters by environment.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { segmentLabel } from '../inventory/segment.ts';
import type { InventoryRecord, InventoryRow, InventorySearchHit, InventoryStatus } from '../inventory/types.ts';
import type { Database, Environment } from './schema.ts';
import type { DirectSqlite } from './direct.ts';
import { keptRead } from './prepared.ts';
import { reservedByOther } from './listing-reservation.ts';
import type { ReadMark } from './row-cache.ts';

export type { InventoryRecord, InventoryRow, InventorySearchHit, InventoryStatus } from '../inventory/types.ts';

export interface ReplaceOptions {
  /** Rows per INSERT statement (default 500 on SQLite, at most MAX_BATCH_SIZE; 5,000 on PostgreSQL). */
  batchSize?: number;
  /**
   * A domain already in the environment keeps its listed_at and its reservation (a quote's) and,
   * if sold, stays sold. Read in
   * the same transaction, so a sale committed meanwhile is never put back on sale. Costs memory
   * in proportion to the environment's size; imports want it, generated inventories do not.
   */
  preserve?: boolean;
}

/** What changed in the listed inventory; the search index listens for these. */
export type InventoryChange =
  | { kind: 'sold' | 'listed'; environment: Environment; domain: string }
  | { kind: 'replaced'; environment: Environment };

export type InventoryListener = (change: InventoryChange) => void;

/** What the search index needs of a listed row. */
export type ListedRow = Pick<InventoryRecord, 'domain' | 'label' | 'tld' | 'category' | 'price_cents' | 'currency'>;

/** Orders of the public marketplace listings; ties are broken by domain, so each order is total. */
export type ListingSort = 'domain' | 'price_asc' | 'price_desc' | 'newest';

/** Filters of the public marketplace listings; all optional, combined with AND. */
export interface ListingFilter {
  tld?: string | undefined;
  minPrice?: number | undefined;
  maxPrice?: number | undefined;
  /** Lowercase text the domain must contain. */
  contains?: string | undefined;
}

/** A row's place in a listing order: its domain and, except for `domain`, the price or listed_at it is sorted by. */
export interface ListingKey {
  domain: string;
  value?: number | undefined;
}

const LISTED_PAGE = 5_000;

export interface ReplaceResult {
  written: number;
  /** Rows written as sold because `preserve` found them sold. */
  keptSold: number;
}

const COLUMNS_PER_ROW = 11;
/** SQLite binds at most 32,766 parameters per statement (PostgreSQL 65,535). */
export const MAX_BATCH_SIZE = Math.floor(32_766 / COLUMNS_PER_ROW);
const DEFAULT_BATCH_SIZE = 500;
/** PostgreSQL binds one array per column (unnest), whatever the rows: only memory bounds a batch. */
const POSTGRES_BATCH_SIZE = 5_000;
const POSTGRES_MAX_BATCH_SIZE = 50_000;
/** The inventory's columns with PostgreSQL's type of each, for inserting them as arrays. */
const POSTGRES_COLUMNS = [
  ['environment', 'text'],
  ['domain', 'text'],
  ['label', 'text'],
  ['tld', 'text'],
  ['price_cents', 'int8'],
  ['floor_cents', 'int8'],
  ['currency', 'text'],
  ['status', 'text'],
  ['category', 'text'],
  ['keywords', 'text'],
  ['listed_at', 'int8'],
] as const satisfies ReadonlyArray<readonly [keyof DbRow, string]>;
/** Search words beyond these add little and each costs a scan of every row. */
const MAX_QUERY_TOKENS = 8;

type DbRow = Database['inventory'];

function isCents(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A bad row fails loudly, before anything reaches the table, rather than being stored. */
function toDbRow(environment: Environment, row: InventoryRow): DbRow {
  if (typeof row.domain !== 'string' || row.domain === '') throw new TypeError('inventory row without a domain');
  if (!isCents(row.price_cents) || !isCents(row.floor_cents) || row.floor_cents > row.price_cents) {
    throw new RangeError(
      `${row.domain}: price_cents and floor_cents must be non-negative integers with floor <= price`,
    );
  }
  if (!Number.isSafeInteger(row.listed_at)) throw new RangeError(`${row.domain}: listed_at must be epoch milliseconds`);
  return {
    environment,
    domain: row.domain,
    label: row.label,
    tld: row.tld,
    price_cents: row.price_cents,
    floor_cents: row.floor_cents,
    currency: row.currency,
    status: row.status ?? 'listed',
    category: row.category,
    keywords: JSON.stringify(row.keywords),
    listed_at: row.listed_at,
  };
}

function toRecord(row: DbRow): InventoryRecord {
  return {
    environment: row.environment,
    domain: row.domain,
    label: row.label,
    tld: row.tld,
    price_cents: row.price_cents,
    floor_cents: row.floor_cents,
    currency: row.currency,
    status: row.status,
    category: row.category,
    keywords: JSON.parse(row.keywords) as string[],
    listed_at: row.listed_at,
    // PostgreSQL answers a bigint as a string.
    reservation:
      row.reserved_by === null || row.reserved_by === undefined
        ? null
        : { partnerId: row.reserved_by, endsAt: Number(row.reserved_until ?? 0) },
  };
}

/** Query words, lowercase alphanumerics only, so they can go into LIKE patterns unescaped. */
function queryTokens(q: string): { exactDomain: string; exactLabel: string; tokens: string[] } {
  const text = q.trim().toLowerCase();
  const domainLike = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(text);
  const labelText = domainLike ? text.slice(0, text.indexOf('.')) : text;
  const words = labelText.split(/[^a-z0-9]+/).filter((w) => w.length > 0);
  // "bestcoffeebeans" also looks for "coffee" and "beans", as a partner typing a name would want.
  const pieces = words.flatMap((w) => [w, ...segmentLabel(w).keywords]);
  const tokens = [...new Set(pieces)].filter((t) => t.length >= 2).slice(0, MAX_QUERY_TOKENS);
  return { exactDomain: domainLike ? text : '', exactLabel: words.join(''), tokens };
}

const EXACT_DOMAIN = 1000;
const EXACT_LABEL = 500;
const IN_LABEL = 10;
const IN_KEYWORDS = 6;
const IN_CATEGORY = 3;

/** Relevance from 0 to 1 that never reorders what the integer relevance ordered. */
function normalise(relevance: number, tokenCount: number): number {
  if (relevance >= EXACT_DOMAIN) return 1;
  if (relevance >= EXACT_LABEL) return 0.95;
  const best = tokenCount * (IN_LABEL + IN_KEYWORDS + IN_CATEGORY);
  return best === 0 ? 0 : Number(((0.9 * relevance) / best).toFixed(4));
}

/** `notify` hears of every change this repository makes (the store defers a transaction's to its commit). */
export function inventoryRepository(db: Kysely<Database>, notify: InventoryListener = () => {}, direct?: DirectSqlite) {
  // Ties are broken by domain in byte order: SQLite's, and on PostgreSQL the domain column's own
  // collation ("C", migration 011), which its primary key and listing indexes share, whatever the
  // database's collation (which may skip punctuation). No query spells a collation, so none can
  // miss an index by spelling another.
  const onPostgres = db.selectFrom('inventory').select('domain').where('domain', '=', '').compile().sql.includes('$1');
  const byDomain: RawBuilder<string> = sql<string>`domain`;
  // Listed rows only, as a literal: the listing indexes hold nothing else (migration 013), and
  // neither planner proves a partial index's condition from a bound parameter.
  const listedOnly: RawBuilder<boolean> = sql<boolean>`status = 'listed'`;
  // Availability, pricing and every order read one listing.
  const listing = keptRead(db, direct, 'inventory', 2, (q, environment: Environment, domain: string) =>
    q.selectFrom('inventory').selectAll().where('environment', '=', environment).where('domain', '=', domain),
  );

  return {
    /**
     * Deletes the environment's inventory and writes `rows` in its place, in one transaction:
     * readers see the old inventory or the new one, never a mix, and a failure keeps the old.
     * Resolves to the number of rows written.
     */
    async replaceEnvironment(
      environment: Environment,
      rows: Iterable<InventoryRow> | AsyncIterable<InventoryRow>,
      options: ReplaceOptions = {},
    ): Promise<ReplaceResult> {
      const batchSize = onPostgres
        ? Math.max(1, Math.min(POSTGRES_MAX_BATCH_SIZE, Math.floor(options.batchSize ?? POSTGRES_BATCH_SIZE)))
        : Math.max(1, Math.min(MAX_BATCH_SIZE, Math.floor(options.batchSize ?? DEFAULT_BATCH_SIZE)));
      const result = await db.transaction().execute(async (trx) => {
        const before = new Map<string, { listed_at: number; status: InventoryStatus }>();
        // Reservations on rows that are replaced, put back once the new rows are in.
        const reservations: Array<{ domain: string; reserved_by: string; reserved_until: number }> = [];
        if (options.preserve) {
          const existing = await trx
            .selectFrom('inventory')
            .select(['domain', 'listed_at', 'status', 'reserved_by', 'reserved_until'])
            .where('environment', '=', environment)
            .execute();
          for (const row of existing) {
            before.set(row.domain, { listed_at: row.listed_at, status: row.status });
            if (row.reserved_by)
              reservations.push({
                domain: row.domain,
                reserved_by: row.reserved_by,
                reserved_until: Number(row.reserved_until),
              });
          }
        }
        await trx.deleteFrom('inventory').where('environment', '=', environment).execute();
        let batch: DbRow[] = [];
        let written = 0;
        let keptSold = 0;
        const flush = async () => {
          // PostgreSQL: one array per column, a statement of eleven parameters whatever the rows,
          // instead of eleven per row for the server to parse and bind.
          if (onPostgres) {
            const arrays = POSTGRES_COLUMNS.map(
              ([column, type]) => sql`${batch.map((r) => r[column])}::${sql.raw(type)}[]`,
            );
            await sql`insert into inventory (${sql.join(POSTGRES_COLUMNS.map(([column]) => sql.ref(column)))}) select * from unnest(${sql.join(arrays)})`.execute(
              trx,
            );
          } else await trx.insertInto('inventory').values(batch).execute();
          written += batch.length;
          batch = [];
        };
        for await (const row of rows) {
          const dbRow = toDbRow(environment, row);
          const old = before.get(dbRow.domain);
          if (old) {
            dbRow.listed_at = old.listed_at;
            if (old.status === 'sold') {
              dbRow.status = 'sold';
              keptSold++;
            }
          }
          batch.push(dbRow);
          if (batch.length >= batchSize) await flush();
        }
        if (batch.length > 0) await flush();
        // A quote's reservation outlives an import of its domain (x-quote-reservation): the listing
        // row is where every sale looks for it (listing-reservation.ts). Few rows: quoted ones.
        for (const r of reservations)
          await trx
            .updateTable('inventory')
            .set({ reserved_by: r.reserved_by, reserved_until: r.reserved_until })
            .where('environment', '=', environment)
            .where('domain', '=', r.domain)
            .execute();
        // The planner's statistics describe the inventory as it was; after replacing all of it
        // they are wrong (or absent, on a new table), and a plan chosen from them can read every
        // listed row to sell one (issue #20). Brought up to date before the commit, so no reader
        // ever plans against the new rows with the old statistics. SQLite keeps none: its planner
        // chooses by the indexes alone (the plan check, test/server/plans.test.ts, holds both).
        if (onPostgres) await sql`analyze inventory`.execute(trx);
        return { written, keptSold };
      });
      notify({ kind: 'replaced', environment });
      return result;
    },

    /** All rows of the environment, sold ones included. */
    async count(environment: Environment): Promise<number> {
      const row = await db
        .selectFrom('inventory')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
        .where('environment', '=', environment)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** True when the environment has no rows at all (a fully sold inventory is not empty). */
    async isEmpty(environment: Environment): Promise<boolean> {
      const row = await db
        .selectFrom('inventory')
        .select('domain')
        .where('environment', '=', environment)
        .limit(1)
        .executeTakeFirst();
      return row === undefined;
    },

    /**
     * The row, listed or sold; undefined when the environment never had the domain. `since`: the
     * request's mark (row-cache.ts), when it has one.
     */
    async find(environment: Environment, domain: string, since?: ReadMark): Promise<InventoryRecord | undefined> {
      const [row] = await listing(since, environment, domain);
      return row ? toRecord(row) : undefined;
    },

    /**
     * Interim keyword search over listed rows: the exact domain, then the exact label (the query's
     * words run together), then labels, keywords and categories containing the query's words,
     * the more words the better; ties go to the shorter label, then the domain. At most `limit`.
     */
    async keywordSearch(environment: Environment, q: string, limit: number): Promise<InventorySearchHit[]> {
      const { exactDomain, exactLabel, tokens } = queryTokens(q);
      if (limit < 1 || (tokens.length === 0 && exactLabel === '')) return [];
      const perToken = tokens.map(
        (t) => sql<number>`(case when label like ${`%${t}%`} then ${sql.lit(IN_LABEL)} else 0 end)
          + (case when keywords like ${`%"${t}"%`} then ${sql.lit(IN_KEYWORDS)} else 0 end)
          + (case when category like ${`%${t}%`} then ${sql.lit(IN_CATEGORY)} else 0 end)`,
      );
      const relevance = sql<number>`(case when domain = ${exactDomain} then ${sql.lit(EXACT_DOMAIN)} else 0 end)
        + (case when label = ${exactLabel} then ${sql.lit(EXACT_LABEL)} else 0 end)
        ${perToken.length > 0 ? sql` + ${sql.join(perToken, sql` + `)}` : sql``}`;
      const rows = await db
        .selectFrom('inventory')
        .selectAll()
        .select(relevance.as('relevance'))
        .where('environment', '=', environment)
        .where(listedOnly)
        .where(sql<boolean>`${relevance} > 0`)
        .orderBy('relevance', 'desc')
        .orderBy(sql`length(label)`)
        .orderBy(byDomain)
        .limit(Math.floor(limit))
        .execute();
      return rows.map(({ relevance: r, ...row }) => ({ ...toRecord(row), score: normalise(Number(r), tokens.length) }));
    },

    /** The environment's listed rows in domain order, read a page at a time (the search index's source). */
    async *listedRows(environment: Environment): AsyncGenerator<ListedRow> {
      let after = '';
      for (;;) {
        const page = await db
          .selectFrom('inventory')
          .select(['domain', 'label', 'tld', 'category', 'price_cents', 'currency'])
          .where('environment', '=', environment)
          .where(listedOnly)
          .where(sql<boolean>`${byDomain} > ${after}`)
          .orderBy(byDomain)
          .limit(LISTED_PAGE)
          .execute();
        yield* page;
        const last = page.at(-1);
        if (!last || page.length < LISTED_PAGE) return;
        after = last.domain;
      }
    },

    /**
     * Listed rows matching `filter` in `sort` order: those after `page.after` (keyset), else
     * from `page.offset`; at most `page.limit`.
     */
    async listings(
      environment: Environment,
      filter: ListingFilter,
      sort: ListingSort,
      page: { after?: ListingKey | undefined; offset?: number | undefined; limit: number },
    ): Promise<InventoryRecord[]> {
      const where = listingConditions(environment, filter);
      if (page.after) where.push(afterKey(sort, page.after));
      let query = db
        .selectFrom('inventory')
        .selectAll()
        .where(sql<boolean>`${sql.join(where, sql` and `)}`)
        .orderBy(listingOrder(sort))
        .limit(Math.floor(page.limit));
      if (!page.after && page.offset) query = query.offset(Math.floor(page.offset));
      return (await query.execute()).map(toRecord);
    },

    /** How many listed rows match `filter`, and how many of them sort at or before `upTo` (0 without it). */
    async countListings(
      environment: Environment,
      filter: ListingFilter,
      sort: ListingSort,
      upTo?: ListingKey,
    ): Promise<{ total: number; upTo: number }> {
      const where = listingConditions(environment, filter);
      const before = upTo ? sql<number>`sum(case when ${afterKey(sort, upTo)} then 0 else 1 end)` : sql<number>`0`;
      const row = await db
        .selectFrom('inventory')
        .select([
          sql<number | string | bigint>`count(*)`.as('total'),
          sql<number | string | bigint | null>`${before}`.as('up_to'),
        ])
        .where(sql<boolean>`${sql.join(where, sql` and `)}`)
        .executeTakeFirstOrThrow();
      return { total: Number(row.total), upTo: Number(row.up_to ?? 0) };
    },

    /**
     * Listed → sold; false when the domain was not listed (absent or already sold), or, for a
     * partner's sale (`sale`: its partner, and real time), while another partner's reservation
     * holds it (listing-reservation.ts), decided on the row as the UPDATE finds it.
     */
    async markSold(
      environment: Environment,
      domain: string,
      sale?: { partnerId: string; now: number },
    ): Promise<boolean> {
      const changed = await setStatus(
        environment,
        domain,
        'listed',
        'sold',
        sale ? sql<boolean>`not ${reservedByOther(sale.partnerId, sale.now)}` : undefined,
      );
      if (changed) notify({ kind: 'sold', environment, domain });
      return changed;
    },

    /** Sold → listed again (a refunded or cancelled sale); false when it was not sold. */
    async markListed(environment: Environment, domain: string): Promise<boolean> {
      const changed = await setStatus(environment, domain, 'sold', 'listed');
      if (changed) notify({ kind: 'listed', environment, domain });
      return changed;
    },
  };

  function listingConditions(environment: Environment, filter: ListingFilter): RawBuilder<unknown>[] {
    const where: RawBuilder<unknown>[] = [sql`environment = ${environment}`, listedOnly];
    if (filter.tld !== undefined) where.push(sql`tld = ${filter.tld}`);
    if (filter.minPrice !== undefined) where.push(sql`price_cents >= ${filter.minPrice}`);
    if (filter.maxPrice !== undefined) where.push(sql`price_cents <= ${filter.maxPrice}`);
    if (filter.contains)
      where.push(
        sql`domain like ${`%${filter.contains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} escape ${sql.lit('\\')}`,
      );
    return where;
  }

  /**
   * Rows strictly after `key` in `sort` order (the order is total, so "not after" is "at or
   * before"). Led by a range on the sort column, so an index in the sort's order starts at the
   * key instead of reading every row before it; only the key's ties are read and passed over.
   */
  function afterKey(sort: ListingSort, key: ListingKey): RawBuilder<unknown> {
    const v = key.value ?? 0;
    switch (sort) {
      case 'domain':
        return sql`${byDomain} > ${key.domain}`;
      case 'price_asc':
        return sql`(price_cents >= ${v} and (price_cents > ${v} or ${byDomain} > ${key.domain}))`;
      case 'price_desc':
        return sql`(price_cents <= ${v} and (price_cents < ${v} or ${byDomain} > ${key.domain}))`;
      case 'newest':
        return sql`(listed_at <= ${v} and (listed_at < ${v} or ${byDomain} > ${key.domain}))`;
    }
  }

  function listingOrder(sort: ListingSort): RawBuilder<unknown> {
    switch (sort) {
      case 'domain':
        return sql`${byDomain} asc`;
      case 'price_asc':
        return sql`price_cents asc, ${byDomain} asc`;
      case 'price_desc':
        return sql`price_cents desc, ${byDomain} asc`;
      case 'newest':
        return sql`listed_at desc, ${byDomain} asc`;
    }
  }

  async function setStatus(
    environment: Environment,
    domain: string,
    from: InventoryStatus,
    to: InventoryStatus,
    also?: RawBuilder<boolean>,
  ): Promise<boolean> {
    let update = db
      .updateTable('inventory')
      .set({ status: to })
      .where('environment', '=', environment)
      .where('domain', '=', domain)
      .where('status', '=', from);
    if (also) update = update.where(also);
    const result = await update.executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

export type InventoryRepository = ReturnType<typeof inventoryRepository>;
