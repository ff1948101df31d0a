// A new partner-collected order, in two trips to the database: one that claims its
// Idempotency-Key and reads everything the decision needs (begin), and one durable write of
// everything the order is (place). The write takes the listing
// (listed → sold), and only if it did, writes the order, its events, a delivery for each event that
// is delivered when the partner has an active webhook endpoint, the first timeline entry and the
// stored answer of its idempotency key: all of them or none. On PostgreSQL that is one statement
// (data-modifying CTEs, each conditional on the listing having been taken), so one round trip and
// one commit; on SQLite steps in a transaction on the embedded connection that the orders arriving
// together share, with one commit and one flush to disk for all of them.
//
// Two orders never take one domain: the listing changes from listed to sold once, and an order
// that loses that race writes nothing (PostgreSQL re-checks the row once the winner commits).
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { reservedByOther } from './listing-reservation.ts';
import { claimStatement, claimTimes, type Claim, type IdempotencyRepository } from './idempotency.ts';
import type { DirectSqlite } from './direct.ts';
import { template, type Template } from './prepared.ts';
import type { Database, Environment, OrdersTable } from './schema.ts';
import { runSteps, stepsTogether, type Steps } from './steps.ts';

/** What a new order on `domain` is decided from; `listing` undefined when the environment never listed it. */
export interface OrderSight {
  listing: { status: 'listed' | 'sold'; price_cents: number; currency: string } | undefined;
  /** An order of the domain that is still alive (not refunded or cancelled). */
  liveOrder: boolean;
  /** The end of another partner's reservation that holds the domain (its business time); null when none. */
  reservedUntil: number | null;
}

/** An event of the new order, as events.ts stores it. */
export interface PlacedEvent {
  id: string;
  type: string;
  body: string;
  /** Queued for delivery when the partner has an active webhook endpoint. */
  deliver: boolean;
}

export interface Placement {
  order: OrdersTable;
  events: readonly PlacedEvent[];
  /** The first timeline entry: the order's status, the first event, no note. */
  timeline: { event_type: string | null; event_id: string | null };
  /** The stored answer of the idempotency key, when there is one (a claim of this credential's key). */
  answer?: { keyId: string; key: string; statusCode: number; body: string } | undefined;
  /** Real time: when the deliveries are first due. */
  now: number;
}

/** `placed` false: the listing was no longer listed, and nothing was written. */
export interface Placed {
  placed: boolean;
  /** Deliveries queued (0 when the partner has no active endpoint). */
  deliveries: number;
}

const ORDER_COLUMNS = [
  'public_id',
  'partner_id',
  'environment',
  'domain',
  'status',
  'held_from',
  'sale_price_cents',
  'currency',
  'payment_model',
  'buyer_email',
  'buyer_country',
  'buyer_account',
  'quote_id',
  'external_payment_ref',
  'checkout_session_id',
  'created_at',
  'updated_at',
  'transfer_completed_at',
] as const satisfies ReadonlyArray<keyof OrdersTable>;

/** The shape of a placement's statements: how many events, which are delivered, whether an answer is stored. */
const shapeOf = (p: Placement) => `${p.events.map((e) => (e.deliver ? 'd' : 'k')).join('')}:${p.answer ? 'a' : ''}`;

/** What a new order asks for before its decision: the caller's partner and the domain, and its key claimed. */
export interface Beginning {
  environment: Environment;
  domain: string;
  partnerId: string;
  /** Real time, ms. */
  now: number;
  /** The Idempotency-Key to claim (absent: keys ignored, a fault of the conformance suite). */
  claim?: { keyId: string; key: string; fingerprint: string } | undefined;
}

export interface Begun {
  /** The caller's partner (its test clock); undefined when it no longer exists. */
  partner: { clockOffsetMs: number } | undefined;
  /** Undefined when no claim was asked for. */
  claim: Claim | undefined;
  sight: OrderSight;
}

/** What the store needs besides its own statements: the key's repository and the partner's read. */
export interface PlacementPeers {
  idempotency: Pick<IdempotencyRepository, 'claim' | 'find'>;
  findPartner(id: string): Promise<{ clockOffsetMs: number } | undefined>;
  /** PostgreSQL: where a statement that claims a key runs (its commit need not wait for the disk). */
  relaxed?: Kysely<Database> | undefined;
}

type SightRow = {
  status: 'listed' | 'sold' | null;
  price_cents: number | null;
  currency: string | null;
  live_order: unknown;
  reserved_until: number | null;
};

/** The sight's columns beside the listing's: whether the domain has a live order, and another partner's reservation. */
function sightColumns(
  eb: ExpressionBuilder<Database, 'inventory'>,
  environment: Environment,
  domain: string,
  partnerId: string,
  now: number,
) {
  return [
    eb
      .exists(
        eb
          .selectFrom('orders')
          .select('orders.public_id')
          .where('orders.environment', '=', environment)
          .where('orders.domain', '=', domain)
          .where('orders.status', 'not in', ['REFUNDED', 'CANCELLED']),
      )
      .as('live_order'),
    sql<number | null>`case when ${reservedByOther(partnerId, now)} then inventory.reserved_until end`.as(
      'reserved_until',
    ),
  ];
}

function toSight(row: SightRow | undefined): OrderSight {
  if (!row || row.status === null) return { listing: undefined, liveOrder: false, reservedUntil: null };
  return {
    listing: { status: row.status, price_cents: Number(row.price_cents), currency: row.currency as string },
    // PostgreSQL answers a boolean, SQLite 0 or 1.
    liveOrder: row.live_order === true || Number(row.live_order) === 1,
    reservedUntil: row.reserved_until === null ? null : Number(row.reserved_until),
  };
}

/**
 * The take's reservation check, part of the UPDATE's condition so that it is decided on the row
 * as the UPDATE finds it: on PostgreSQL, an UPDATE that waited for a quote's transaction re-reads
 * the row that quote wrote (listing-reservation.ts).
 */
const notReservedByOther = (partnerId: unknown, now: unknown) => sql<boolean>`not ${reservedByOther(partnerId, now)}`;

export function orderPlacement(
  db: Kysely<Database>,
  onPostgres: boolean,
  direct: DirectSqlite | undefined,
  peers: PlacementPeers,
) {
  const sight = template<[Environment, string, string, number], SightRow>(4, (environment, domain, partnerId, now) =>
    db
      .selectFrom('inventory')
      .select(['status', 'price_cents', 'currency'])
      .select((eb) => sightColumns(eb, environment, domain, partnerId, now))
      .where('inventory.environment', '=', environment)
      .where('inventory.domain', '=', domain),
  );
  // PostgreSQL: the key's claim, the caller's partner and the sight in one statement, on the
  // relaxed pool (the claim's commit need not wait for the disk; idempotency.ts says why). The
  // partner row is the statement's one row; the listing is joined to it, so a missing listing
  // still answers the partner.
  type BeginRow = SightRow & { clock_offset_ms: number; claimed: number | string | null };
  const beginQuery = (claiming: boolean) =>
    template<unknown[], BeginRow>(claiming ? 9 : 4, (...a) => {
      const [environment, domain, partnerId, now, keyId, key, fingerprint, expiresAt, abandonedBefore] = a as [
        Environment,
        string,
        string,
        number,
        string,
        string,
        string,
        number,
        number,
      ];
      // Typed as the plain database: the claim CTE is read by name only, in raw SQL below.
      const source = (claiming
        ? db.with('claim', (qc) => claimStatement(qc, keyId, key, fingerprint, now, expiresAt, abandonedBefore))
        : db) as unknown as Kysely<Database>;
      return source
        .selectFrom('partners as caller')
        .leftJoin('inventory', (j) =>
          j.on('inventory.environment', '=', environment).on('inventory.domain', '=', domain),
        )
        .select(['caller.clock_offset_ms', 'inventory.status', 'inventory.price_cents', 'inventory.currency'])
        .select((eb) =>
          sightColumns(eb as unknown as ExpressionBuilder<Database, 'inventory'>, environment, domain, partnerId, now),
        )
        .select(claiming ? sql<number>`(select count(*) from claim)`.as('claimed') : sql<null>`null`.as('claimed'))
        .where('caller.id', '=', partnerId);
    });
  const beginClaiming = beginQuery(true);
  const beginUnclaimed = beginQuery(false);

  const built = new Map<string, Template<unknown[], { placed: unknown; deliveries: unknown }>>();
  const statements = sqliteStatements(db);
  // SQLite: orders arriving together commit together (one that fails is undone alone), with one
  // flush to disk for all of them, off the event loop's thread (steps.ts stepsTogether); every
  // order waits for that flush before it is answered. Other requests may see an order from its commit, before the
  // flush ends (a list of orders, a competing order's refusal); webhooks are sent only once it is
  // on disk (events.ts claimDue). Only a power loss within that flush (milliseconds) can take back
  // an order, and its own request has then had no answer.
  const together = direct ? stepsTogether(db, direct, { commit: 'durable' }) : undefined;

  const look = async (
    environment: Environment,
    domain: string,
    partnerId: string,
    now: number,
  ): Promise<OrderSight> => {
    const query = sight([environment, domain, partnerId, now]);
    const [row] = direct?.run(query) ?? (await db.executeQuery(query)).rows;
    return toSight(row);
  };

  return {
    /** One read: the listing, whether the domain has a live order, and another partner's reservation. */
    look,

    /**
     * Everything a new order is decided from, with its key claimed: one statement on PostgreSQL;
     * on SQLite the claim (a deferred commit), the partner (kept in memory) and the read, each
     * cheap on the embedded connection. A key that is not claimed comes with the record that
     * stopped it; its sight is not to be used.
     */
    async begin(b: Beginning): Promise<Begun> {
      if (!onPostgres || db.isTransaction) {
        const claim = b.claim
          ? await peers.idempotency.claim(b.claim.keyId, b.claim.key, b.claim.fingerprint, b.now)
          : undefined;
        const found = await peers.findPartner(b.partnerId);
        return {
          partner: found ? { clockOffsetMs: found.clockOffsetMs } : undefined,
          claim,
          sight: await look(b.environment, b.domain, b.partnerId, b.now),
        };
      }
      const on = peers.relaxed ?? db;
      const base = [b.environment, b.domain, b.partnerId, b.now];
      const query = b.claim
        ? beginClaiming([
            ...base,
            b.claim.keyId,
            b.claim.key,
            b.claim.fingerprint,
            claimTimes(b.now).expiresAt,
            claimTimes(b.now).abandonedBefore,
          ])
        : beginUnclaimed(base);
      const [row] = (await on.executeQuery(query)).rows;
      if (!row) {
        // No partner: nothing to decide. The statement's claim stands, harmlessly: every request
        // of a credential whose partner is gone is refused (403) before its key is looked at.
        return { partner: undefined, claim: undefined, sight: toSight(undefined) };
      }
      const partner = { clockOffsetMs: Number(row.clock_offset_ms) };
      if (!b.claim) return { partner, claim: undefined, sight: toSight(row) };
      if (Number(row.claimed) === 1) return { partner, claim: { claimed: true }, sight: toSight(row) };
      // Not claimed: the record that stopped it, or (it vanished meanwhile) a claim again.
      const existing = await peers.idempotency.find(b.claim.keyId, b.claim.key);
      const claim = existing
        ? ({ claimed: false, existing } as const)
        : await peers.idempotency.claim(b.claim.keyId, b.claim.key, b.claim.fingerprint, b.now);
      return {
        partner,
        claim,
        sight: claim.claimed ? await look(b.environment, b.domain, b.partnerId, b.now) : toSight(row),
      };
    },

    /** Takes the listing and writes the order with everything that belongs to it, durably; or nothing. */
    async place(p: Placement): Promise<Placed> {
      if (!onPostgres)
        return together && !db.isTransaction
          ? together(() => sqlitePlacement(statements, p))
          : runSteps(db, direct, () => sqlitePlacement(statements, p), { commit: 'durable' });
      const shape = shapeOf(p);
      let bind = built.get(shape);
      if (!bind) built.set(shape, (bind = postgresPlacement(db, p)));
      const [row] = (await db.executeQuery(bind(argumentsOf(p)))).rows;
      return { placed: Number(row?.placed ?? 0) === 1, deliveries: Number(row?.deliveries ?? 0) };
    },
  };
}

export type OrderPlacement = ReturnType<typeof orderPlacement>;

/** The bound values of a PostgreSQL placement, in the order its template takes them. */
function argumentsOf(p: Placement): unknown[] {
  return [
    ...ORDER_COLUMNS.map((c) => p.order[c]),
    ...p.events.flatMap((e) => [e.id, e.type, e.body]),
    p.timeline.event_type,
    p.timeline.event_id,
    p.now,
    ...(p.answer ? [p.answer.keyId, p.answer.key, p.answer.statusCode, p.answer.body] : []),
  ];
}

/**
 * PostgreSQL: one statement. Every part reads what the listing's update returned (`sold`), or
 * what a part reading it returned, so none writes anything when the listing was no longer listed.
 * (All parts run, whether or not the final SELECT reads them, and see one snapshot.) Parameters
 * take their types from the columns they are inserted into.
 */
function postgresPlacement(
  db: Kysely<Database>,
  shape: Placement,
): Template<unknown[], { placed: unknown; deliveries: unknown }> {
  const arity = ORDER_COLUMNS.length + 3 * shape.events.length + 3 + (shape.answer ? 4 : 0);
  return template<unknown[], { placed: unknown; deliveries: unknown }>(arity, (...a) => {
    let i = 0;
    const order = Object.fromEntries(ORDER_COLUMNS.map((c) => [c, a[i++]])) as Record<
      (typeof ORDER_COLUMNS)[number],
      unknown
    >;
    const events = shape.events.map((e) => ({ id: a[i++], type: a[i++], body: a[i++], deliver: e.deliver }));
    const [eventType, eventId, now] = [a[i++], a[i++], a[i++]];
    const answer = shape.answer ? { keyId: a[i++], key: a[i++], statusCode: a[i++], body: a[i++] } : undefined;
    const parts = [
      sql`sold as (update inventory set status = 'sold' where environment = ${order.environment} and domain = ${order.domain} and status = 'listed' and ${notReservedByOther(order.partner_id, now)} returning domain)`,
      sql`placed as (insert into orders (${sql.join(ORDER_COLUMNS.map((c) => sql.ref(c)))}) select ${sql.join(ORDER_COLUMNS.map((c) => sql`${order[c]}`))} from sold returning public_id)`,
      sql`timeline as (insert into order_timeline (public_id, idx, status, event_type, event_id, at, note) select public_id, 0, ${order.status}, ${eventType}, ${eventId}, ${order.created_at}, null from placed)`,
    ];
    const deliveries: string[] = [];
    events.forEach((e, k) => {
      const event = `event_${k}`;
      parts.push(
        sql`${sql.id(event)} as (insert into events (id, partner_id, type, created_at, body) select ${e.id}, ${order.partner_id}, ${e.type}, ${order.created_at}, ${e.body} from placed returning id)`,
      );
      if (!e.deliver) return;
      const delivery = `delivery_${k}`;
      deliveries.push(delivery);
      parts.push(
        sql`${sql.id(delivery)} as (insert into outbox (event_id, partner_id, status, attempts, next_attempt_at, lease_until, last_error, delivered_at) select e.id, ${order.partner_id}, 'pending', 0, ${now}, null, null, null from ${sql.id(event)} e join webhook_endpoints w on w.partner_id = ${order.partner_id} and w.active = 1 returning id)`,
      );
    });
    if (answer) {
      parts.push(
        sql`answer as (update idempotency set state = 'done', status_code = ${answer.statusCode}, body = ${answer.body}, headers = '{}' where key_id = ${answer.keyId} and idem_key = ${answer.key} and exists (select 1 from placed))`,
      );
    }
    const delivered =
      deliveries.length === 0
        ? sql`0`
        : sql.join(
            deliveries.map((d) => sql`(select count(*) from ${sql.id(d)})`),
            sql` + `,
          );
    const statement = sql<{
      placed: unknown;
      deliveries: unknown;
    }>`with ${sql.join(parts)} select (select count(*) from placed) as placed, ${delivered} as deliveries`;
    return { compile: () => statement.compile(db) };
  });
}

/** SQLite has no data-modifying CTEs: the same writes, one statement each, in one transaction. */
function sqliteStatements(db: Kysely<Database>) {
  return {
    take: template<[Environment, string, string, number], { domain: string }>(
      4,
      (environment, domain, partnerId, now) =>
        db
          .updateTable('inventory')
          .set({ status: 'sold' })
          .where('environment', '=', environment)
          .where('domain', '=', domain)
          .where('status', '=', 'listed')
          .where(notReservedByOther(partnerId, now))
          .returning('domain'),
    ),
    order: template<unknown[], never>(ORDER_COLUMNS.length, (...a) =>
      db
        .insertInto('orders')
        .values(Object.fromEntries(ORDER_COLUMNS.map((c, k) => [c, a[k]])) as unknown as OrdersTable),
    ),
    event: template<[string, string, string, number, string], never>(5, (id, partnerId, type, createdAt, body) =>
      db.insertInto('events').values({ id, partner_id: partnerId, type, created_at: createdAt, body }),
    ),
    delivery: template<[string, string, number], { id: number }>(3, (eventId, partnerId, now) =>
      db
        .insertInto('outbox')
        .columns([
          'event_id',
          'partner_id',
          'status',
          'attempts',
          'next_attempt_at',
          'lease_until',
          'last_error',
          'delivered_at',
        ])
        .expression((eb) =>
          eb
            .selectFrom('webhook_endpoints')
            .select([
              eb.val(eventId).as('event_id'),
              'partner_id',
              sql.lit('pending').as('status'),
              sql.lit(0).as('attempts'),
              eb.val(now).as('next_attempt_at'),
              sql.lit(null).as('lease_until'),
              sql.lit(null).as('last_error'),
              sql.lit(null).as('delivered_at'),
            ])
            .where('partner_id', '=', partnerId)
            .where('active', '=', 1),
        )
        .returning('id'),
    ),
    timeline: template<[string, string, string | null, string | null, number], never>(
      5,
      (publicId, status, eventType, eventId, at) =>
        db
          .insertInto('order_timeline')
          .values({ public_id: publicId, idx: 0, status, event_type: eventType, event_id: eventId, at, note: null }),
    ),
    answer: template<[number, string, string, string], never>(4, (statusCode, body, keyId, key) =>
      db
        .updateTable('idempotency')
        .set({ state: 'done', status_code: statusCode, body, headers: '{}' })
        .where('key_id', '=', keyId)
        .where('idem_key', '=', key),
    ),
  };
}

function* sqlitePlacement(s: ReturnType<typeof sqliteStatements>, p: Placement): Steps<Placed> {
  const { order } = p;
  const taken = yield s.take([order.environment, order.domain, order.partner_id, p.now]);
  if (taken.length === 0) return { placed: false, deliveries: 0 };
  yield s.order(ORDER_COLUMNS.map((c) => order[c]));
  let deliveries = 0;
  for (const e of p.events) {
    yield s.event([e.id, order.partner_id, e.type, order.created_at, e.body]);
    if (e.deliver) deliveries += (yield s.delivery([e.id, order.partner_id, p.now])).length;
  }
  yield s.timeline([order.public_id, order.status, p.timeline.event_type, p.timeline.event_id, order.created_at]);
  if (p.answer) yield s.answer([p.answer.statusCode, p.answer.body, p.answer.keyId, p.answer.key]);
  return { placed: true, deliveries };
}
