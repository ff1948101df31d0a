// How each hot statement of the store is meant to run: which tables it reaches, and through an
// index constraining which columns. The plan check (test/server/plans.test.ts) explains every
// statement the hot paths send and holds it to its entry here; a statement without an entry fails
// it, so a new query has to say how it is meant to run, and a plan that reads a whole table, or
// reaches a table by another way than intended, is found by a test instead of by a partner.
import type { Kysely } from 'kysely';
import { explain, tableColumns, type Plan, type TableAccess } from './plan-check.ts';
import type { Dialect } from './migrations.ts';
import type { Database } from './schema.ts';
import { statementShape, type StatementEvent } from './statements.ts';

/** A table the statement reaches, and the columns the index condition must constrain. */
export interface IntendedAccess {
  table: string;
  /** Reached through an index whose condition constrains (at least) these columns. */
  by: readonly string[];
  /** The index, when one in particular is meant (for its order, not only its lookup). */
  index?: string;
  /** Why reading every row is the right plan (no index can find the rows). */
  everyRow?: string;
  /** Why the plan reaches the table only for some bound values (the planner drops the part for others). */
  onlySometimes?: string;
}

export interface Intended {
  name: string;
  /** Matches the statement's shape (statements.ts), with `?` for every bound value on both dialects. */
  statement: RegExp;
  /** Every table the plan reaches; none for statements that reach no table (BEGIN, a plain INSERT). */
  reaches: readonly IntendedAccess[];
  /** Why the plan may sort (an ORDER BY over the few rows an index found). Default: it must not. */
  sorts?: string;
  /** Only this dialect sends it. */
  dialect?: Dialect;
  /** Not sent by the plan check's walk of the hot paths (a failure path, maintenance), or not on this dialect. */
  unwalked?: true | Dialect;
}

const by = (table: string, ...columns: string[]): IntendedAccess => ({ table, by: columns });
const through = (index: string, table: string, ...columns: string[]): IntendedAccess => ({ table, by: columns, index });
const COUNT_EVERY_ROW = 'the page reports its total: every listed row matching the filter is counted';
const SUBSTRING =
  'a substring of the domain ("q") is found by no index: every listed row is read in one order or another';

/** Listing pages in each order: the index of that order, started at the cursor's key when there is one. */
const LISTING_ORDERS: Array<[string, string, string]> = [
  ['domain', 'order by domain asc', 'domain'],
  ['price_asc', 'order by price_cents asc, domain asc', 'price_cents'],
  ['price_desc', 'order by price_cents desc, domain asc', 'price_cents'],
  ['newest', 'order by listed_at desc, domain asc', 'listed_at'],
];
const LISTING_INDEX: Record<string, string | undefined> = {
  // The primary key (environment, domain) serves the domain order as well as its own index does.
  domain: undefined,
  price_asc: 'inventory_listing_price',
  price_desc: 'inventory_listing_price_desc',
  newest: 'inventory_listing_newest',
};
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function listingEntries(): Intended[] {
  return LISTING_ORDERS.flatMap(([sort, order, column]): Intended[] => {
    const index = LISTING_INDEX[sort];
    const access = (...columns: string[]): IntendedAccess => ({
      table: 'inventory',
      by: ['environment', ...columns],
      ...(index ? { index } : {}),
    });
    const where = '^select \\* from "inventory" where environment = \\? and status = \'listed\'';
    const filters = '(?: and tld = \\?)?(?: and price_cents >= \\?)?(?: and price_cents <= \\?)?';
    const tail = ` ${escape(order)} limit \\S+(?: offset \\?)?$`;
    return [
      {
        name: `listings by ${sort}, first page`,
        statement: new RegExp(`${where}${filters}${tail}`),
        reaches: [access()],
      },
      {
        name: `listings by ${sort}, after the cursor`,
        statement: new RegExp(
          `${where}${filters} and \\(?${column} ${column === 'domain' ? '>' : '(?:>=|<=)'} \\?.*\\)?${tail}`,
        ),
        reaches: [access(column)],
      },
    ];
  });
}

export const INTENDED: readonly Intended[] = [
  // `commit -- deferred`: the embedded SQLite connection's commit that does not wait for the disk (direct.ts).
  { name: 'transaction control', statement: /^(begin|commit|rollback)( immediate| -- deferred)?$/, reaches: [] },

  // Every signed request: its credential, its nonce and rate-limit count (store/replay-guard.ts).
  // SQLite keeps credentials and partners in memory until they change (row-cache.ts): the walk's are never read again.
  // PostgreSQL reads those of the requests arriving together in one statement (credentials.ts,
  // turn-reads.ts); a key alone only inside a transaction.
  {
    name: 'credential',
    statement: /^select \* from "credentials" where "key_id" = \?$/,
    reaches: [by('credentials', 'key_id')],
    unwalked: true,
  },
  {
    name: 'partner',
    statement: /^select \* from "partners" where "id" = \?$/,
    reaches: [by('partners', 'id')],
    unwalked: true,
  },
  {
    name: 'credentials of requests arriving together',
    statement:
      /^select \*, md5\(credentials::text\) as "row_digest" from "credentials" where "key_id" = any\(\?::text\[\]\)$/,
    reaches: [by('credentials', 'key_id')],
    dialect: 'postgres',
  },
  {
    name: 'partners of requests arriving together',
    statement: /^select \* from "partners" where "id" = any\(\?::text\[\]\)$/,
    reaches: [by('partners', 'id')],
    dialect: 'postgres',
  },
  // PostgreSQL admits a batch of signed requests in one statement, confirming the credential rows
  // they were verified with (credentials.ts `lastRead`); nonces and counts alone in mixed batches.
  {
    name: 'admission',
    statement:
      /^with arriving \(key_id, nonce, expires_at, digest\) as \(values .* insert into nonces \(key_id, nonce, expires_at\) select .* insert into rate_counters /,
    reaches: [
      {
        ...by('credentials', 'key_id'),
        onlySometimes:
          'a request whose credential was read for it has no digest to confirm, and null digests need no lookup',
      },
    ],
    dialect: 'postgres',
  },
  {
    name: 'nonces',
    statement: /^insert into "nonces" .* on conflict \("key_id", "nonce"\) do update/,
    reaches: [],
    dialect: 'postgres',
    unwalked: true,
  },
  // SQLite: whether another connection has committed, read in the admissions' write transaction
  // (store/row-cache.ts `observe`); reads no table.
  { name: 'version check', statement: /^pragma data_version$/, reaches: [], dialect: 'sqlite' },
  {
    name: 'nonce log, what others appended',
    statement: /^select "seq", "key_id", "nonce", "expires_at" from "nonce_log" where "seq" > \?/,
    reaches: [by('nonce_log', 'seq')],
    dialect: 'sqlite',
  },
  { name: 'nonce log, appended', statement: /^insert into "nonce_log" /, reaches: [], dialect: 'sqlite' },
  {
    name: 'rate-limit counts',
    statement: /^insert into "rate_counters" .* on conflict \("bucket"\) do update/,
    reaches: [],
  },

  // POST /orders: the key's claim, one read, one write (store/idempotency.ts, store/order-placement.ts).
  // PostgreSQL claims inside the order's first statement; alone when a claim vanished, and on the public surface.
  {
    name: 'idempotency claim',
    statement: /^insert into "idempotency" .* on conflict \("key_id", "idem_key"\) do update/,
    reaches: [],
    unwalked: 'postgres',
  },
  {
    name: 'idempotency record',
    statement: /^select \* from "idempotency" where "key_id" = \? and "idem_key" = \?$/,
    reaches: [by('idempotency', 'key_id', 'idem_key')],
  },
  {
    name: 'idempotency answer',
    statement: /^update "idempotency" set "state" = \?.* where "key_id" = \? and "idem_key" = \?$/,
    reaches: [by('idempotency', 'key_id', 'idem_key')],
  },
  {
    name: 'idempotency release',
    statement: /^delete from "idempotency" where "key_id" = \? and "idem_key" = \?/,
    reaches: [by('idempotency', 'key_id', 'idem_key')],
    unwalked: true,
  },
  {
    name: 'order begun',
    statement:
      /^with "claim" as \(insert into "idempotency" .* from "partners" as "caller" left join "inventory" on "inventory"\."environment" = \? and "inventory"\."domain" = \?/,
    reaches: [by('partners', 'id'), by('inventory', 'environment', 'domain'), by('orders', 'domain')],
    dialect: 'postgres',
  },
  {
    name: 'order begun, keys ignored',
    statement:
      /^select "caller"\."clock_offset_ms", .* from "partners" as "caller" left join "inventory" on "inventory"\."environment" = \? and "inventory"\."domain" = \?/,
    reaches: [by('partners', 'id'), by('inventory', 'environment', 'domain'), by('orders', 'domain')],
    dialect: 'postgres',
    unwalked: true,
  },
  {
    // PostgreSQL reads it inside the order's first statement; alone when a claim vanished.
    unwalked: 'postgres',
    name: 'order sight',
    statement: /^select "status", "price_cents", "currency", exists \(select "orders"\."public_id" from "orders"/,
    reaches: [
      by('inventory', 'environment', 'domain'),
      by('orders', 'domain'),
      // The reserving partner's clock, when the listing carries a reservation (listing-reservation.ts).
      by('partners', 'id'),
    ],
  },
  {
    name: 'order placement',
    statement: /^with sold as \(update inventory set status = 'sold' where environment = \? and domain = \?/,
    reaches: [
      by('inventory', 'environment', 'domain'),
      // The reserving partner's clock, when the listing carries a reservation (listing-reservation.ts).
      by('partners', 'id'),
      by('webhook_endpoints', 'partner_id'),
      by('idempotency', 'key_id', 'idem_key'),
    ],
    dialect: 'postgres',
  },
  {
    // SQLite's take of the listing for a new order, with the reservation on its row (order-placement.ts).
    name: 'order take',
    statement:
      /^update "inventory" set "status" = \? where "environment" = \? and "domain" = \? and "status" = \? and not coalesce\(case when inventory\.reserved_by .* returning "domain"$/,
    reaches: [by('inventory', 'environment', 'domain'), by('partners', 'id')],
    dialect: 'sqlite',
  },
  {
    // A hosted checkout's payment takes the listing alone (public/checkout.ts), with the same check.
    name: 'hosted checkout take',
    statement:
      /^update "inventory" set "status" = \? where "environment" = \? and "domain" = \? and "status" = \? and not coalesce\(case when inventory\.reserved_by [^]*\)$/,
    reaches: [by('inventory', 'environment', 'domain'), by('partners', 'id')],
    unwalked: true,
  },
  {
    name: 'listing reservation',
    statement:
      /^update "inventory" set "reserved_by" = \?, "reserved_until" = \? where "environment" = \? and "domain" = \? and "status" = \?$/,
    reaches: [by('inventory', 'environment', 'domain')],
  },
  {
    name: 'listing status change',
    statement:
      /^update "inventory" set "status" = \? where "environment" = \? and "domain" = \? and "status" = \?( returning "domain")?$/,
    reaches: [by('inventory', 'environment', 'domain')],
  },
  // PostgreSQL inserts a new order inside the placement; hosted checkout inserts it alone.
  { name: 'order insert', statement: /^insert into "orders" \(/, reaches: [], unwalked: 'postgres' },
  { name: 'event insert', statement: /^insert into "events" \(/, reaches: [] },
  {
    name: 'delivery for an active endpoint',
    statement: /^insert into "outbox" .* from "webhook_endpoints" where "partner_id" = \?/,
    reaches: [by('webhook_endpoints', 'partner_id')],
    dialect: 'sqlite',
  },
  { name: 'delivery insert', statement: /^insert into "outbox" \(.*\) values \(/, reaches: [] },
  { name: 'timeline insert', statement: /^insert into "order_timeline" \(/, reaches: [] },

  // Discovery and quotes (a listing, another partner's reservation).
  {
    name: 'listing',
    statement: /^select \* from "inventory" where "environment" = \? and "domain" = \?$/,
    reaches: [by('inventory', 'environment', 'domain')],
  },
  {
    name: "another partner's reservation",
    statement:
      /^select "reserved_until" from "inventory" where "environment" = \? and "domain" = \? and coalesce\(case when inventory\.reserved_by /,
    reaches: [by('inventory', 'environment', 'domain'), by('partners', 'id')],
  },
  {
    name: "the caller's own reservation (x-quote-reservation)",
    statement:
      /^select max\("expires_at"\) as "ends_at" from "quotes" where "environment" = \? and "domain" = \? and "partner_id" = \?$/,
    reaches: [by('quotes', 'environment', 'domain')],
  },
  {
    name: "the caller's latest order of the domain",
    statement:
      /^select max\("created_at"\) as "latest" from "orders" where "partner_id" = \? and "domain" = \? and "environment" = \?$/,
    reaches: [through('orders_domain', 'orders', 'domain', 'partner_id')],
  },
  { name: 'quote insert', statement: /^insert into "quotes" \(/, reaches: [] },
  {
    name: "a domain's quote decisions held (PostgreSQL: an advisory lock of the transaction)",
    statement: /^select pg_advisory_xact_lock\(hashtextextended\(\?, 0\)\)$/,
    reaches: [],
    dialect: 'postgres',
  },
  {
    name: "a domain's quote decisions held (SQLite: the write lock, by a delete that finds nothing)",
    statement: /^delete from "quotes" where "quote_id" = \?$/,
    reaches: [by('quotes', 'quote_id')],
    dialect: 'sqlite',
  },

  // GET /orders, GET /orders/{public_id}, moves of an order.
  {
    name: 'orders by domain',
    statement: /^select \* from "orders" where "partner_id" = \?(?: and "status" = \?)? and "domain" = \?/,
    reaches: [through('orders_domain', 'orders', 'domain', 'partner_id')],
  },
  {
    name: 'orders by status',
    statement: /^select \* from "orders" where "partner_id" = \? and "status" = \?/,
    reaches: [through('orders_partner_status', 'orders', 'partner_id', 'status')],
  },
  {
    name: 'orders after the cursor',
    statement:
      /^select \* from "orders" where "partner_id" = \?.* and \("created_at", "public_id"\) < \(\?, \?\) order by/,
    reaches: [through('orders_partner_created', 'orders', 'partner_id', 'created_at')],
  },
  {
    name: 'orders in a time window',
    statement: /^select \* from "orders" where "partner_id" = \? and "created_at" >= \?/,
    reaches: [through('orders_partner_created', 'orders', 'partner_id', 'created_at')],
  },
  {
    name: 'orders, first page',
    statement: /^select \* from "orders" where "partner_id" = \? order by "created_at" desc, "public_id" desc limit/,
    reaches: [through('orders_partner_created', 'orders', 'partner_id')],
  },
  {
    name: 'one order',
    statement: /^select \* from "orders" where "public_id" = \?$/,
    reaches: [by('orders', 'public_id')],
  },
  {
    name: 'order update',
    statement: /^update "orders" set .* where "public_id" = \?$/,
    reaches: [by('orders', 'public_id')],
  },
  {
    name: 'order timeline',
    statement: /^select \* from "order_timeline" where "public_id" = \? order by "idx"$/,
    reaches: [by('order_timeline', 'public_id')],
  },
  {
    name: 'order timeline, last entry',
    statement: /^select max\("idx"\) as "idx" from "order_timeline" where "public_id" = \?$/,
    reaches: [by('order_timeline', 'public_id')],
  },
  {
    name: 'referral sale of an order',
    statement: /^select \* from "referral_sales" where "public_id" = \?$/,
    reaches: [by('referral_sales', 'public_id')],
  },

  // GET /events and webhook deliveries (store/events.ts).
  // PostgreSQL's primary key of events is the partner's walk (migration 009); SQLite's is its rowid.
  {
    name: 'events after a position',
    statement: /^select \* from "events" where "partner_id" = \? and "seq" > \? order by "seq" limit/,
    reaches: [by('events', 'partner_id', 'seq')],
  },
  {
    name: 'event position',
    statement: /^select "seq" from "events" where "id" = \? and "partner_id" = \?$/,
    reaches: [by('events', 'id')],
  },
  {
    name: 'active endpoint',
    statement: /^select "active" from "webhook_endpoints" where "partner_id" = \?$/,
    reaches: [by('webhook_endpoints', 'partner_id')],
  },
  {
    name: 'endpoint',
    statement: /^select \* from "webhook_endpoints" where "partner_id" = \?$/,
    reaches: [by('webhook_endpoints', 'partner_id')],
  },
  {
    name: 'due deliveries',
    statement:
      /^select "outbox"\."id" as "outboxId", .* from "outbox" inner join "events" on "events"\."id" = "outbox"\."event_id" where "outbox"\."status" = \?/,
    reaches: [through('outbox_due', 'outbox', 'status', 'next_attempt_at'), by('events', 'id')],
    dialect: 'sqlite',
  },
  {
    name: 'due deliveries, leased',
    statement:
      /^with claimed as \( update outbox set lease_until = \? where id in \( select id from outbox where status = 'pending' and next_attempt_at <= \?/,
    reaches: [through('outbox_due', 'outbox', 'status', 'next_attempt_at'), by('outbox', 'id'), by('events', 'id')],
    sorts: 'the leased deliveries, at most a batch, back in the order they fell due',
    dialect: 'postgres',
  },
  {
    name: 'delivery lease',
    statement: /^update "outbox" set "lease_until" = \? where "id" = \?/,
    reaches: [by('outbox', 'id')],
    dialect: 'sqlite',
  },
  { name: 'delivery outcome', statement: /^update "outbox" set .* where "id" = \?$/, reaches: [by('outbox', 'id')] },
  {
    name: 'next delivery due',
    statement: /^select min\("next_attempt_at"\) as "at" from "outbox" where "status" = \?$/,
    reaches: [through('outbox_due', 'outbox', 'status')],
    unwalked: true,
  },

  // Public marketplace listings and the search index's source (store/inventory.ts).
  ...listingEntries(),
  {
    name: 'listings by a substring',
    statement: /^select \* from "inventory" where environment = \? and status = 'listed'.* and domain like \?/,
    reaches: [{ table: 'inventory', by: [], everyRow: SUBSTRING }],
    sorts: SUBSTRING,
  },
  {
    name: 'listing count',
    statement: /^select count\(\*\) as "total", .* from "inventory" where environment = \? and status = 'listed'/,
    reaches: [{ table: 'inventory', by: [], everyRow: COUNT_EVERY_ROW }],
  },
  {
    name: 'search source',
    statement:
      /^select "domain", "label", "tld", "category", "price_cents", "currency" from "inventory" where "environment" = \? and status = 'listed' and domain > \? order by domain limit/,
    reaches: [by('inventory', 'environment', 'domain')],
  },
];

export interface Verdict {
  statement: string;
  intended: string | undefined;
  ok: boolean;
  problems: string[];
  plan: Plan;
}

/**
 * What is wrong with `plan` for `intended`; nothing when it runs as meant. A table may be meant
 * to be reached more than once (a statement that finds rows one way and updates them by key):
 * every access must be one of its entries, and every entry must be used.
 */
export function planProblems(intended: Intended, plan: Plan): string[] {
  const problems: string[] = [];
  const used = new Set<IntendedAccess>();
  for (const access of plan.accesses) {
    const meant = intended.reaches.filter((r) => r.table === access.table);
    if (meant.length === 0) {
      problems.push(`reaches ${access.table}, which it is not meant to`);
      continue;
    }
    const fitting = meant.find((m) => accessProblems(m, access).length === 0);
    if (fitting) used.add(fitting);
    else problems.push(...accessProblems(meant[0] as IntendedAccess, access));
  }
  for (const meant of intended.reaches) {
    if (used.has(meant)) continue;
    if (!plan.accesses.some((a) => a.table === meant.table)) {
      if (meant.onlySometimes === undefined) problems.push(`never reaches ${meant.table}: is this entry still right?`);
    } else if (!problems.some((p) => p.includes(` ${meant.table} `)))
      problems.push(`reaches ${meant.table}, but never by (${meant.by.join(', ')})`);
  }
  if (plan.sorts && intended.sorts === undefined) problems.push('sorts rows the index should give in order');
  return problems;
}

function accessProblems(meant: IntendedAccess, access: TableAccess): string[] {
  if (meant.everyRow !== undefined) return [];
  if (access.index === null)
    return [`reads every row of ${access.table}, meant through an index on (${meant.by.join(', ')})`];
  const problems: string[] = [];
  if (meant.index && access.index !== meant.index)
    problems.push(`reaches ${access.table} through ${access.index}, meant through ${meant.index}`);
  const missing = meant.by.filter((c) => !access.columns.includes(c));
  if (missing.length > 0)
    problems.push(
      `reaches ${access.table} through ${access.index} constraining (${access.columns.join(', ')}), not ${missing.join(', ')}`,
    );
  return problems;
}

/** The entry of a statement, by its shape; undefined when none matches. */
export function intendedFor(shape: string, dialect: Dialect): Intended | undefined {
  const text = shape.replace(/\$\d+/g, '?');
  return INTENDED.find((i) => (i.dialect === undefined || i.dialect === dialect) && i.statement.test(text));
}

/** The entries the plan check's walk must hear on `dialect`. */
export function walkedEntries(dialect: Dialect): Intended[] {
  return INTENDED.filter(
    (i) => (i.dialect === undefined || i.dialect === dialect) && i.unwalked !== true && i.unwalked !== dialect,
  );
}

/** Explains each distinct statement (shape and values) once and judges it against its entry. */
export async function judgeStatements(
  db: Kysely<Database>,
  dialect: Dialect,
  statements: readonly StatementEvent[],
): Promise<Verdict[]> {
  const columns = await tableColumns(db, dialect);
  const seen = new Set<string>();
  const verdicts: Verdict[] = [];
  for (const s of statements) {
    const key = `${s.sql}\u0000${JSON.stringify(s.parameters)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const shape = statementShape(s.sql);
    const intended = intendedFor(shape, dialect);
    const plan = /^(begin|commit|rollback|set |savepoint|release)/i.test(shape)
      ? { accesses: [], sorts: false, text: shape }
      : await explain(db, dialect, s, columns);
    const problems = intended
      ? planProblems(intended, plan)
      : ['no entry in server/store/intended-plans.ts says how this statement is meant to run'];
    verdicts.push({ statement: shape, intended: intended?.name, ok: problems.length === 0, problems, plan });
  }
  return verdicts;
}
