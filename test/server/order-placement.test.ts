// The new order's one read and one write (server/store/order-placement.ts): all of the order's
// rows or none; one order per domain however many race for it; and on SQLite's embedded
// connection, orders arriving together share one commit while a failing one is undone alone, and
// none is answered before that commit is on disk.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { tempFolder } from '../support/temp-folder.ts';
import { generateInventory } from '../../server/inventory/generate.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore, type Store } from '../../server/store/index.ts';
import type { Placement } from '../../server/store/order-placement.ts';
import type { StatementEvent } from '../../server/store/statements.ts';
import { postgresUrl } from './harness.ts';

const pg = postgresUrl();
type Open = (heard: StatementEvent[]) => Promise<Store>;
const stores: Array<[string, Open]> = [
  [
    'sqlite in a file (embedded connection)',
    async (heard) =>
      createStore(
        await openDatabase({ dataDir: tempFolder('placement-'), onStatement: (e) => heard.push(e) }),
        secretBox(randomBytes(32)),
      ),
  ],
  [
    'sqlite in memory (through Kysely)',
    async (heard) =>
      createStore(
        await openDatabase({ filename: ':memory:', onStatement: (e) => heard.push(e) }),
        secretBox(randomBytes(32)),
      ),
  ],
  ...(pg
    ? ([
        [
          'postgres',
          async (heard: StatementEvent[]) =>
            createStore(
              await openDatabase({
                databaseUrl: pg,
                schema: `t_${randomBytes(6).toString('hex')}`,
                onStatement: (e) => heard.push(e),
              }),
              secretBox(randomBytes(32)),
            ),
        ],
      ] as Array<[string, Open]>)
    : []),
];

const NOW = Date.parse('2026-11-25T12:00:00Z');

/** A partner-collected order of ptn_a on `domain`, with one delivered event: ord_<id>, evt_<id>. */
function newPlacement(id: string, domain: string): Placement {
  return {
    order: {
      public_id: `ord_${id}`,
      partner_id: 'ptn_a',
      environment: 'sandbox',
      domain,
      status: 'EXTERNALLY_PAID',
      held_from: null,
      sale_price_cents: 100,
      currency: 'USD',
      payment_model: 'partner_collected',
      buyer_email: 'b@example.org',
      buyer_country: null,
      buyer_account: null,
      quote_id: null,
      external_payment_ref: null,
      checkout_session_id: null,
      created_at: NOW,
      updated_at: NOW,
      transfer_completed_at: null,
    },
    events: [{ id: `evt_${id}`, type: 'order.recorded', body: '{}', deliver: true }],
    timeline: { event_type: 'order.recorded', event_id: `evt_${id}` },
    now: NOW,
  };
}

describe.each(stores)('order placement on %s', (name, open) => {
  let store: Store | undefined;
  afterEach(async () => {
    if (store?.dialect === 'postgres')
      await sql`drop schema if exists ${sql.id(String((await sql<{ s: string }>`select current_schema() as s`.execute(store.db)).rows[0]?.s))} cascade`.execute(
        store.db,
      );
    await store?.close();
    store = undefined;
  });

  async function setUp(heard: StatementEvent[] = []) {
    store = await open(heard);
    await store.inventory.replaceEnvironment('sandbox', generateInventory({ size: 50, seed: 1 }));
    await store.credentials.createPartner({ id: 'ptn_a', environment: 'sandbox', clockOffsetMs: 0, createdAt: NOW });
    const listed = await store.db
      .selectFrom('inventory')
      .select(['domain', 'price_cents'])
      .where('status', '=', 'listed')
      .orderBy('domain')
      .execute();
    return { store, listed };
  }

  let serial = 0;
  const placement = (domain: string, extra: Partial<Placement> = {}): Placement => ({
    ...newPlacement(`test${String(++serial).padStart(6, '0')}`, domain),
    ...extra,
  });

  const rowsOf = async (s: Store, publicId: string) => ({
    orders: (await s.db.selectFrom('orders').select('public_id').where('public_id', '=', publicId).execute()).length,
    timeline: (await s.db.selectFrom('order_timeline').select('idx').where('public_id', '=', publicId).execute())
      .length,
    events: (await s.db.selectFrom('events').select('id').where('id', '=', publicId.replace('ord_', 'evt_')).execute())
      .length,
  });

  it('writes the order, its event, its delivery when the partner has an active endpoint, its timeline and its stored answer; or nothing when the listing was taken', async () => {
    const { store: s, listed } = await setUp();
    await s.events.upsertEndpoint('ptn_a', 'https://example.org/hook', 'a-secret-of-16ch', NOW);
    await s.idempotency.claim('pk_a', 'key-1', 'f', NOW);
    const domain = listed[0]!.domain;
    const first = placement(domain, { answer: { keyId: 'pk_a', key: 'key-1', statusCode: 201, body: '{"ok":true}' } });
    expect(await s.placement.place(first)).toEqual({ placed: true, deliveries: 1 });
    expect(await rowsOf(s, first.order.public_id)).toEqual({ orders: 1, timeline: 1, events: 1 });
    expect((await s.db.selectFrom('outbox').select('event_id').execute()).map((r) => r.event_id)).toEqual([
      first.events[0]!.id,
    ]);
    expect(await s.idempotency.find('pk_a', 'key-1')).toMatchObject({
      state: 'done',
      status_code: 201,
      body: '{"ok":true}',
    });
    expect((await s.inventory.find('sandbox', domain))?.status).toBe('sold');
    expect(await s.placement.look('sandbox', domain, 'ptn_a', NOW)).toMatchObject({ liveOrder: true });

    const second = placement(domain);
    expect(await s.placement.place(second)).toEqual({ placed: false, deliveries: 0 });
    expect(await rowsOf(s, second.order.public_id)).toEqual({ orders: 0, timeline: 0, events: 0 });
  });

  it('of 20 placements racing for one domain, exactly one writes anything', async () => {
    const { store: s, listed } = await setUp();
    const domain = listed[1]!.domain;
    const racing = Array.from({ length: 20 }, () => placement(domain));
    const outcomes = await Promise.all(racing.map((p) => s.placement.place(p)));
    expect(outcomes.filter((o) => o.placed)).toHaveLength(1);
    expect((await s.db.selectFrom('orders').select('public_id').where('domain', '=', domain).execute()).length).toBe(1);
    expect((await s.db.selectFrom('events').select('id').execute()).length).toBe(1);
  });

  it('a placement the database refuses leaves nothing, and the others arriving with it are written', async () => {
    const heard: StatementEvent[] = [];
    const { store: s, listed } = await setUp(heard);
    const good = [placement(listed[2]!.domain), placement(listed[3]!.domain), placement(listed[4]!.domain)];
    // An event type may not be null: refused after the listing was taken and the order inserted.
    const bad = placement(listed[5]!.domain);
    const poisoned = { ...bad, events: bad.events.map((e) => ({ ...e, type: null as unknown as string })) };
    heard.length = 0;
    const outcomes = await Promise.allSettled([
      s.placement.place(good[0]!),
      s.placement.place(poisoned),
      s.placement.place(good[1]!),
      s.placement.place(good[2]!),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    for (const g of good) expect(await rowsOf(s, g.order.public_id)).toEqual({ orders: 1, timeline: 1, events: 1 });
    expect(await rowsOf(s, bad.order.public_id)).toEqual({ orders: 0, timeline: 0, events: 0 });
    expect((await s.inventory.find('sandbox', listed[5]!.domain))?.status).toBe('listed');
    if (name.startsWith('sqlite in a file')) {
      // The four arrived together: one commit for all of them, flushed to disk off the event loop.
      expect(heard.filter((e) => e.sql.startsWith('commit')).map((e) => e.sql)).toEqual(['commit -- deferred']);
    }
  });

  it('begins an order: claims its key, reads the partner and the sight; the same key again gets the record that stopped it', async () => {
    const { store: s, listed } = await setUp();
    await s.db.updateTable('partners').set({ clock_offset_ms: 5000 }).where('id', '=', 'ptn_a').execute();
    const domain = listed[6]!.domain;
    const claim = { keyId: 'pk_a', key: 'key-begin', fingerprint: 'f1' };
    const first = await s.placement.begin({ environment: 'sandbox', domain, partnerId: 'ptn_a', now: NOW, claim });
    expect(first).toEqual({
      partner: { clockOffsetMs: 5000 },
      claim: { claimed: true },
      sight: {
        listing: { status: 'listed', price_cents: Number(listed[6]!.price_cents), currency: 'USD' },
        liveOrder: false,
        reservedUntil: null,
      },
    });
    const again = await s.placement.begin({
      environment: 'sandbox',
      domain,
      partnerId: 'ptn_a',
      now: NOW + 10,
      claim: { ...claim, fingerprint: 'f2' },
    });
    expect(again.claim).toEqual({
      claimed: false,
      existing: expect.objectContaining({
        key_id: 'pk_a',
        idem_key: 'key-begin',
        fingerprint: 'f1',
        state: 'executing',
      }),
    });
    // Another partner's live reservation on the listing holds the domain, until it ends on that
    // partner's clock; the partner's own does not. An unknown domain has no listing.
    await s.credentials.createPartner({ id: 'ptn_b', environment: 'sandbox', clockOffsetMs: 20_000, createdAt: NOW });
    expect(await s.orders.reserveListing('sandbox', domain, 'ptn_b', NOW + 60_000)).toBe(true);
    const reservedUntil = async (partnerId: string, now: number) =>
      (await s.placement.begin({ environment: 'sandbox', domain, partnerId, now })).sight.reservedUntil;
    expect(await reservedUntil('ptn_a', NOW)).toBe(NOW + 60_000);
    expect(await reservedUntil('ptn_a', NOW + 39_999)).toBe(NOW + 60_000);
    expect(await reservedUntil('ptn_a', NOW + 40_000)).toBeNull();
    expect(await reservedUntil('ptn_b', NOW)).toBeNull();
    expect(
      (
        await s.placement.begin({
          environment: 'sandbox',
          domain: 'never-listed.example',
          partnerId: 'ptn_a',
          now: NOW,
        })
      ).sight,
    ).toEqual({ listing: undefined, liveOrder: false, reservedUntil: null });
    // A partner that does not exist: none is read.
    expect(
      (await s.placement.begin({ environment: 'sandbox', domain, partnerId: 'ptn_gone', now: NOW })).partner,
    ).toBeUndefined();
  });
});

describe('order placement on a SQLite file: answered once on disk (store/direct.ts onDisk)', () => {
  it('answers an order only after the flush that covers its commit; orders committed meanwhile share the next flush; a failed flush fails its orders', async () => {
    const flushes: Array<{ release(): void; fail(err: Error): void }> = [];
    const dataDir = tempFolder('placement-flush-');
    const opened = await openDatabase({
      dataDir,
      flush: () => new Promise<void>((release, fail) => flushes.push({ release, fail })),
      onFlushError: () => undefined,
    });
    const s = createStore(opened, secretBox(randomBytes(32)));
    // Turns of the event loop: the batch is queued for one, and nothing here waits on a timer.
    const turns = async (n: number) => {
      for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    const state = <T>(p: Promise<T>) => {
      const seen: { settled: 'pending' | 'placed' | 'failed' } = { settled: 'pending' };
      p.then(
        () => (seen.settled = 'placed'),
        () => (seen.settled = 'failed'),
      );
      return seen;
    };
    const stored = async (domain: string) =>
      (await s.db.selectFrom('orders').select('public_id').where('domain', '=', domain).execute()).length;
    try {
      await s.inventory.replaceEnvironment('sandbox', generateInventory({ size: 20, seed: 2 }));
      await s.credentials.createPartner({ id: 'ptn_a', environment: 'sandbox', clockOffsetMs: 0, createdAt: NOW });
      const domains = (
        await s.db.selectFrom('inventory').select('domain').where('status', '=', 'listed').orderBy('domain').execute()
      ).map((r) => r.domain);
      const order = (i: number): Placement => newPlacement(`flush${i}`, domains[i]!);

      // The first order is committed, its flush starts at once (not DEFERRED_FLUSH_MS later), and
      // the order waits for it.
      const first = state(s.placement.place(order(0)));
      await turns(3);
      expect(await stored(domains[0]!)).toBe(1);
      expect(flushes).toHaveLength(1);
      expect(first.settled).toBe('pending');

      // Two more, committed together while that flush runs: no flush of their own yet.
      const second = state(s.placement.place(order(1)));
      const third = state(s.placement.place(order(2)));
      await turns(3);
      expect([await stored(domains[1]!), await stored(domains[2]!)]).toEqual([1, 1]);
      expect(flushes).toHaveLength(1);
      expect([first.settled, second.settled, third.settled]).toEqual(['pending', 'pending', 'pending']);

      // The first flush ends: the first order is answered, and one flush starts for the other two.
      flushes[0]!.release();
      await turns(3);
      expect([first.settled, second.settled, third.settled]).toEqual(['placed', 'pending', 'pending']);
      expect(flushes).toHaveLength(2);

      // That flush fails: whether they reached the disk is unknown, so neither is answered as placed.
      flushes[1]!.fail(new Error('disk gone'));
      await turns(3);
      expect([second.settled, third.settled]).toEqual(['failed', 'failed']);

      // The next order gets a flush of its own, and is answered once it ends.
      const fourth = state(s.placement.place(order(3)));
      await turns(3);
      expect(flushes).toHaveLength(3);
      expect(fourth.settled).toBe('pending');
      flushes[2]!.release();
      await turns(3);
      expect(fourth.settled).toBe('placed');
    } finally {
      flushes.forEach((f) => f.release());
      await s.close();
    }
  });
});
