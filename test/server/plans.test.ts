// The plan check (issue #20): every statement the hot paths of both surfaces send is explained,
// with its own values, on tables of realistic size, and each must reach its tables through its
// intended index (server/store/intended-plans.ts). A statement nobody has classified fails too:
// a new query must say how it is meant to run. Three moments: after the sandbox generation (a bulk
// load), with the tables that grow row by row (orders, events, the outbox, keys, nonces) filled and
// analysed as a deployment with a history has them; after an import replaced the inventory; and,
// on PostgreSQL, once every table has statistics (an operator's ANALYZE, or autovacuum).
// SQLite runs always (a file, so the embedded connection's statements are heard too); PostgreSQL
// when DATABASE_URL is set, and says loudly when it is skipped.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateInventory } from '../../server/inventory/generate.ts';
import { importInventoryFile } from '../../server/inventory/import.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore } from '../../server/store/index.ts';
import { judgeStatements, walkedEntries, type Verdict } from '../../server/store/intended-plans.ts';
import type { Dialect } from '../../server/store/migrations.ts';
import type { Database } from '../../server/store/schema.ts';
import type { StatementEvent } from '../../server/store/statements.ts';
import { postgresUrl, startHarness, type Harness } from './harness.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';
import { measureStartup } from '../support/startup.ts';
import { signedRequest, type Credential } from './support/http.ts';
import { tempFolder } from '../support/temp-folder.ts';

const V1 = '/api/partner/v1';
/** Large enough that reading every row costs more than any index lookup, small enough for a test. */
const SANDBOX = 20_000;
const ORGANIC = 20_000;
/** Partners with a credential and a webhook endpoint each: tables too large to read whole. */
const PARTNERS = 5_000;
const HIGH = { search: 100_000, write: 100_000, reporting: 100_000 };
/**
 * Each moment walks every hot path over tables of 20,000 rows: 120 s on a quiet machine, longer
 * in proportion on a loaded one (the first moment failed only under load), measured by one
 * start-up a moment before (test/support/startup.ts).
 */
const MOMENT = (await measureStartup()).timeout(100, 120_000);

const pg = postgresUrl();
const legs: Array<{ name: Dialect; databaseUrl: string | undefined }> = [
  { name: 'sqlite', databaseUrl: undefined },
  ...(pg ? [{ name: 'postgres' as const, databaseUrl: pg }] : []),
];
if (!pg)
  console.warn(
    '\n*** DATABASE_URL is not set: the PostgreSQL plan check (test/server/plans.test.ts) is SKIPPED; only SQLite plans are checked ***\n',
  );

/** Rows 1..n as a recursive CTE both dialects run, for filling tables in one statement each. */
const numbers = (n: number) =>
  sql.raw(`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${n})`);

/**
 * The tables that grow row by row, at a realistic size: many partners' orders (in several
 * statuses), events, deliveries, keys and nonces. A quarter of the orders and events are
 * `walker`'s, the partner whose requests are explained: a partner with a long history is where a
 * plan that reads all of it shows.
 */
async function fillOrganicTables(db: Kysely<Database>, dialect: Dialect, walker: string): Promise<void> {
  // Bound values typed, so PostgreSQL never takes them for integers.
  const base = Date.now() - 90 * 86_400_000;
  const at = sql`cast(${base} as bigint)`;
  const later = sql`cast(${Date.now() + 86_400_000} as bigint)`;
  const ith = sql`cast(${base} as bigint) + i * 1000`;
  const partner = sql`case when i % 4 = 0 then ${walker} else 'ptr_seed' || (i % ${sql.raw(String(PARTNERS))} + 1) end`;
  const status = sql.raw(
    `case (i / 4) % 4 when 0 then 'EXTERNALLY_PAID' when 1 then 'TRANSFER_IN_PROGRESS' when 2 then 'TRANSFER_COMPLETED' else 'SETTLED' end`,
  );
  const keyId = sql.raw(`'pk_test_seed' || (i % ${PARTNERS} + 1)`);
  await sql`${numbers(PARTNERS)} insert into partners (id, environment, clock_offset_ms, created_at) select 'ptr_seed' || i, 'sandbox', 0, ${at} from n`.execute(
    db,
  );
  await sql`${numbers(PARTNERS)} insert into credentials (key_id, partner_id, environment, secret_enc, scopes, affiliate, approved, rate_limits, created_at) select 'pk_test_seed' || i, 'ptr_seed' || i, 'sandbox', 'x', '[]', 0, 1, '{}', ${at} from n`.execute(
    db,
  );
  await sql`${numbers(PARTNERS)} insert into webhook_endpoints (partner_id, url, secret_enc, active, created_at, updated_at) select 'ptr_seed' || i, 'https://example.org/hook', 'x', 1, ${at}, ${at} from n`.execute(
    db,
  );
  await sql`${numbers(ORGANIC)} insert into orders (public_id, partner_id, environment, domain, status, held_from, sale_price_cents, currency, payment_model, buyer_email, buyer_country, buyer_account, quote_id, external_payment_ref, checkout_session_id, created_at, updated_at, transfer_completed_at)
    select 'ord_seed' || (100000 + i), ${partner}, 'sandbox', 'seed' || i || '.com', ${status}, null, 10000, 'USD', 'partner_collected', 'buyer@example.org', null, null, null, null, null, ${ith}, ${ith}, null from n`.execute(
    db,
  );
  await sql`${numbers(ORGANIC)} insert into order_timeline (public_id, idx, status, event_type, event_id, at, note) select 'ord_seed' || (100000 + i), 0, 'EXTERNALLY_PAID', 'order.recorded', 'evt_seed' || (100000 + i), ${ith}, null from n`.execute(
    db,
  );
  // Envelopes as the server writes them: GET /events answers them, validated against the contract.
  const envelope = sql`'{"id":"evt_seed' || (100000 + i) || '","type":"order.recorded","created_at":"2026-01-01T00:00:00Z","partner_id":"' || ${partner} || '","data":{"order":{"public_id":"ord_seed' || (100000 + i) || '","domain":"seed' || i || '.com","status":"EXTERNALLY_PAID","sale_price_cents":10000,"currency":"USD"}}}'`;
  await sql`${numbers(ORGANIC)} insert into events (id, partner_id, type, created_at, body) select 'evt_seed' || (100000 + i), ${partner}, 'order.recorded', ${ith}, ${envelope} from n`.execute(
    db,
  );
  await sql`${numbers(ORGANIC)} insert into outbox (event_id, partner_id, status, attempts, next_attempt_at, lease_until, last_error, delivered_at) select 'evt_seed' || (100000 + i), ${partner}, 'delivered', 1, ${ith}, null, null, ${ith} from n`.execute(
    db,
  );
  await sql`${numbers(ORGANIC)} insert into idempotency (key_id, idem_key, fingerprint, state, status_code, body, headers, created_at, expires_at) select ${keyId}, 'key-' || i, 'f', 'done', 201, '{}', '{}', ${at}, ${later} from n`.execute(
    db,
  );
  await sql`${numbers(ORGANIC)} insert into quotes (quote_id, partner_id, environment, domain, price_cents, expires_at, created_at) select 'qt_seed' || i, ${partner}, 'sandbox', 'seed' || i || '.com', 10000, ${at}, ${at} from n`.execute(
    db,
  );
  await sql`${numbers(PARTNERS)} insert into rate_counters (bucket, count, window_start, expires_at) select 'pk_test_seed' || i || ':search', 1, ${at}, ${later} from n`.execute(
    db,
  );
  await sql`${numbers(ORGANIC)} insert into referral_sales (public_id, partner_id, link_id, click_id, domain, buyer_email, buyer_country, amount_cents, commission_cents, currency, sold_at) select 'ord_seed' || (100000 + i), ${partner}, 'lnk_seed', 'clk_seed' || i, 'seed' || i || '.com', 'buyer@example.org', null, 10000, 1000, 'USD', ${ith} from n`.execute(
    db,
  );
  const nonces =
    dialect === 'postgres'
      ? sql.raw('nonces (key_id, nonce, expires_at)')
      : sql.raw('nonce_log (key_id, nonce, expires_at)');
  await sql`${numbers(ORGANIC)} insert into ${nonces} select ${keyId}, 'nonce-' || i, ${later} from n`.execute(db);
}

/** The tables that grow row by row, filled by fillOrganicTables. */
const GROWN = [
  'credentials',
  'events',
  'idempotency',
  'nonces',
  'order_timeline',
  'orders',
  'outbox',
  'partners',
  'quotes',
  'rate_counters',
  'referral_sales',
  'webhook_endpoints',
];

describe.each(legs)('the plan of every hot statement ($name)', ({ name: dialect, databaseUrl }) => {
  let h: Harness;
  let rx: Receiver;
  let cred: Credential;
  let heard: StatementEvent[] | undefined;

  beforeAll(async () => {
    const dir = tempFolder('plans-');
    h = await startHarness({
      databaseUrl,
      ...(databaseUrl ? {} : { sqliteFile: join(dir, 'service.sqlite') }),
      inventorySize: SANDBOX,
      onStatement: (e) => heard?.push(e),
    });
    cred = await h.mint({ scopes: ['search', 'buy', 'webhook', 'report'], rate_limits: HIGH });
    await fillOrganicTables(h.store.db, dialect, cred.partner_id);
    // A deployment with a history: the tables that grew row by row have their statistics (the
    // server's maintenance keeps them, store/statistics.ts); the inventory has only what its bulk
    // load left it.
    if (dialect === 'postgres') for (const table of GROWN) await sql`analyze ${sql.id(table)}`.execute(h.store.db);
    rx = await startReceiver();
    const hook = await signedRequest(h, cred, {
      method: 'PUT',
      path: '/api/partner/webhooks',
      body: { url: rx.url, secret: `whsec_${randomUUID()}` },
    });
    expect(hook.status, hook.text).toBe(200);
  }, MOMENT);

  afterAll(async () => {
    await h?.close();
    await rx?.close();
  });

  /** Every statement the hot paths send, heard while they run. */
  async function hotStatements(): Promise<StatementEvent[]> {
    const domains = await listedDomains(h.store.db);
    await anotherProcessWrites(h);
    await anotherInstanceChangesCredential(h, cred);
    heard = [];
    try {
      await driveHotPaths(h, cred, rx, domains);
      return heard;
    } finally {
      heard = undefined;
    }
  }

  async function check(moment: string): Promise<Verdict[]> {
    const verdicts = await judgeStatements(h.store.db, dialect, await hotStatements());
    if (process.env.PLANS_DUMP)
      for (const v of verdicts)
        console.log(
          `${moment} ${v.ok ? 'ok ' : 'BAD'} [${v.intended ?? '?'}] ${v.statement}\n    ${v.plan.text.split('\n').join('\n    ')}\n    => ${v.problems.join('; ')}`,
        );
    const bad = verdicts.filter((v) => !v.ok);
    expect(
      bad.map(
        (v) =>
          `${v.intended ?? 'UNCLASSIFIED'}: ${v.statement}\n  ${v.problems.join('\n  ')}\n  plan: ${v.plan.text.slice(0, 1500)}`,
      ),
    ).toEqual([]);
    return verdicts;
  }

  it(
    'after the sandbox generation',
    async () => {
      const verdicts = await check('generated');
      // Every entry is still sent by the paths it describes: none is stale, and the walk missed none.
      const heardNames = new Set(verdicts.map((v) => v.intended));
      expect(
        walkedEntries(dialect)
          .map((i) => i.name)
          .filter((name) => !heardNames.has(name)),
      ).toEqual([]);
    },
    MOMENT,
  );

  it(
    'after an import replaced the sandbox inventory',
    async () => {
      const file = join(tempFolder('plans-import-'), 'inventory.csv');
      const rows = [...generateInventory({ size: SANDBOX, seed: 2 })];
      writeFileSync(
        file,
        `domain,price_cents,floor_cents\n${rows.map((r) => `${r.domain},${r.price_cents},${r.floor_cents}`).join('\n')}\n`,
      );
      const outcome = await importInventoryFile(h.store.db, 'sandbox', file);
      expect(outcome.ok).toBe(true);
      await check('imported');
    },
    MOMENT,
  );

  // SQLite keeps no statistics (store/statistics.ts): the server never analyses it, and its
  // planner chooses by the indexes alone, which the moments above check.
  if (dialect === 'postgres') {
    it(
      'once every table has statistics',
      async () => {
        await sql.raw('analyze').execute(h.store.db);
        await check('analysed');
      },
      MOMENT,
    );
  }
});

/**
 * SQLite: a nonce committed through another connection to the file, as a second process would:
 * the walk's first signed request then reads the nonce log past what its ledger holds, a read
 * skipped while no other connection has written (server/store/nonce-ledger.ts).
 */
async function anotherProcessWrites(h: Harness): Promise<void> {
  const file = h.database.sqliteFile;
  if (!file || file === ':memory:') return;
  const other = createStore(await openDatabase({ filename: file, dataDir: dirname(file) }), secretBox(h.masterKey));
  try {
    const now = Date.now();
    const admitted = await other.replayGuard.admit(
      {
        keyId: 'pk_test_other',
        nonce: randomUUID(),
        expiresAt: now + 360_000,
        bucket: 'pk_test_other:search',
        windowMs: 60_000,
      },
      now,
    );
    expect(admitted.fresh).toBe(true);
  } finally {
    await other.close();
  }
}

/**
 * PostgreSQL: the walker's credential changed through another instance (its scopes reordered, the
 * same set), so the walk's first signed request finds that the row this instance last read has
 * changed (its admission answers stale) and reads it again (server/store/credentials.ts `lastRead`).
 */
async function anotherInstanceChangesCredential(h: Harness, cred: Credential): Promise<void> {
  if (!h.database.databaseUrl) return;
  const row = await h.store.db
    .selectFrom('credentials')
    .select('scopes')
    .where('key_id', '=', cred.key_id)
    .executeTakeFirstOrThrow();
  const scopes = (JSON.parse(row.scopes) as string[]).reverse();
  await h.store.credentials.updateCredential(cred.key_id, { scopes });
}

interface Listed {
  domain: string;
  price: number;
}

/** Three listed sandbox domains, read before anything is heard. */
async function listedDomains(db: Kysely<Database>): Promise<[Listed, Listed, Listed]> {
  const rows = await db
    .selectFrom('inventory')
    .select(['domain', 'price_cents'])
    .where('environment', '=', 'sandbox')
    .where('status', '=', 'listed')
    .orderBy('listed_at')
    .orderBy('domain')
    .limit(3)
    .execute();
  const [a, b, c] = rows.map((r) => ({ domain: r.domain, price: Number(r.price_cents) }));
  if (!a || !b || !c) throw new Error('the sandbox inventory has fewer than three listed domains');
  return [a, b, c];
}

/** The hot paths of both surfaces, as partners and visitors drive them. */
async function driveHotPaths(
  h: Harness,
  cred: Credential,
  rx: Receiver,
  [a, b, c]: [Listed, Listed, Listed],
): Promise<void> {
  const ok = async (what: string, reply: Promise<{ status: number; text: string }>, status = 200) => {
    const r = await reply;
    expect(r.status, `${what}: ${r.text.slice(0, 300)}`).toBe(status);
    return r as Awaited<typeof reply> & { body: any };
  };
  const orderBody = (d: Listed, price = d.price) => ({
    domain: d.domain,
    expected_price: price,
    currency: 'USD',
    buyer: { email: 'buyer@example.org' },
  });
  const post = (body: unknown, key = randomUUID()) =>
    signedRequest(h, cred, { method: 'POST', path: `${V1}/orders`, body, idempotencyKey: key });

  // Discovery: a signed read (admission, credential), the listing, another partner's quotes.
  await ok('availability', signedRequest(h, cred, { path: `${V1}/availability`, query: `domain=${c.domain}` }));
  await ok('pricing', signedRequest(h, cred, { path: `${V1}/pricing`, query: `domain=${c.domain}` }));
  await ok('quote', signedRequest(h, cred, { method: 'POST', path: `${V1}/quotes`, body: { domain: c.domain } }));
  // Quoting again reads the caller's own reservation (x-quote-reservation).
  await ok('re-quote', signedRequest(h, cred, { method: 'POST', path: `${V1}/quotes`, body: { domain: c.domain } }));
  await ok('search', signedRequest(h, cred, { path: `${V1}/domains/search`, query: 'q=coffee' }));
  // Orders: one taken, one refused and stored, one replayed.
  const key = randomUUID();
  const order = await ok('order', post(orderBody(a), key), 201);
  await ok('replay', post(orderBody(a), key), 201);
  await ok('refusal', post(orderBody(b, b.price + 1)), 422);
  await ok('quoted order', post({ ...orderBody(c) }), 201);
  // The order's delivery, through the dispatcher.
  await rx.waitFor((ds) => ds.length >= 2, 10_000, 'the orders’ deliveries');
  // Lists: first page, a deep page, filters; one order; events after a position.
  const page = await ok('orders', signedRequest(h, cred, { path: `${V1}/orders`, query: 'limit=1' }));
  await ok(
    'orders page 2',
    signedRequest(h, cred, {
      path: `${V1}/orders`,
      query: `limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`,
    }),
  );
  await ok('orders by status', signedRequest(h, cred, { path: `${V1}/orders`, query: 'status=EXTERNALLY_PAID' }));
  await ok('orders by domain', signedRequest(h, cred, { path: `${V1}/orders`, query: `domain=${a.domain}` }));
  await ok('orders by time', signedRequest(h, cred, { path: `${V1}/orders`, query: 'from=2020-01-01&to=2100-01-01' }));
  await ok('one order', signedRequest(h, cred, { path: `${V1}/orders/${order.body.public_id}` }));
  const events = await ok('events', signedRequest(h, cred, { path: `${V1}/events`, query: 'limit=1' }));
  await ok(
    'events after',
    signedRequest(h, cred, { path: `${V1}/events`, query: `after_id=${events.body.events[0].id}` }),
  );
  // A move of the order: its status, event, delivery and timeline; the listing back on sale.
  await ok(
    'refund',
    signedRequest(h, cred, { method: 'POST', path: `${V1}/refunds`, body: { public_id: order.body.public_id } }),
  );
  await rx.waitFor((ds) => ds.length >= 3, 10_000, 'the refund’s delivery');
  // Public: the marketplace listings in every order, filtered, and their next pages; domain search.
  for (const sort of ['domain', 'price_asc', 'price_desc', 'newest']) {
    const first = await ok(
      `listings ${sort}`,
      fetch(`${h.baseUrl}/api/market/listings?sort=${sort}&limit=5`).then(textReply),
    );
    await ok(
      `listings ${sort} next`,
      fetch(
        `${h.baseUrl}/api/market/listings?sort=${sort}&limit=5&cursor=${encodeURIComponent(first.body.page.next_cursor)}`,
      ).then(textReply),
    );
  }
  await ok(
    'listings filtered',
    fetch(`${h.baseUrl}/api/market/listings?tld=com&min_price=1000&max_price=100000000&sort=price_asc`).then(textReply),
  );
  await ok('listings by text', fetch(`${h.baseUrl}/api/market/listings?q=coffee`).then(textReply));
  await ok('listings by offset', fetch(`${h.baseUrl}/api/market/listings?offset=40&limit=5`).then(textReply));
  await ok(
    'public search',
    fetch(`${h.baseUrl}/api/domain/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'coffee' }),
    }).then(textReply),
  );
}

async function textReply(res: Response): Promise<{ status: number; text: string; body: any }> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, text, body };
}
