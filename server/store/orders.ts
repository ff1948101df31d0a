// Quotes (reservations), orders and their timelines. Every method takes the executor it runs on,
// so a caller can put a state change and its events in one transaction.
import { sql, type Kysely } from 'kysely';
import { mayBeReservedAgainst } from '../domain/quote-reservation.ts';
import type { InventoryRecord } from '../inventory/types.ts';
import type { DirectSqlite } from './direct.ts';
import { reservedByOther } from './listing-reservation.ts';
import { prepared } from './prepared.ts';
import type { Database, Environment, OrdersTable } from './schema.ts';

export type OrderRow = OrdersTable;
export type TimelineRow = Database['order_timeline'];

export interface OrderFilters {
  partnerId: string;
  status?: string | undefined;
  domain?: string | undefined;
  /** Inclusive, epoch ms. */
  from?: number | undefined;
  /** Exclusive, epoch ms. */
  to?: number | undefined;
}

export function orderRepository(db: Kysely<Database>, dialect: 'sqlite' | 'postgres', direct?: DirectSqlite) {
  // Asked by every quote, checkout session, and availability answer whose listing names another partner.
  const reservation = prepared(
    db,
    direct,
    4,
    (q, environment: Environment, domain: string, partnerId: string, now: number) =>
      q
        .selectFrom('inventory')
        .select('reserved_until')
        .where('environment', '=', environment)
        .where('domain', '=', domain)
        .where(reservedByOther(partnerId, now)),
  );
  const reservationByOther = async (
    environment: Environment,
    domain: string,
    partnerId: string,
    now: number,
  ): Promise<{ endsAt: number } | undefined> => {
    const [row] = await reservation(environment, domain, partnerId, now);
    return row ? { endsAt: Number(row.reserved_until) } : undefined;
  };
  return {
    /**
     * Records a quote: the history the cool-down reads (`ownReservation`); the reservation itself
     * is on the listing row (`reserveListing`). The same partner quoting the same domain twice
     * within one millisecond of business time is issued the same signed quote_id: that is one quote.
     */
    async insertQuote(q: Database['quotes']): Promise<void> {
      await db
        .insertInto('quotes')
        .values(q)
        .onConflict((oc) => oc.column('quote_id').doNothing())
        .execute();
    },

    /**
     * Inside a transaction: holds the domain's quote decisions until the transaction ends, so two
     * partners quoting it at the same instant cannot both find it free (x-quote-reservation). On
     * PostgreSQL a transaction-scoped advisory lock on the environment and domain; on SQLite the
     * database's write lock (one writer at a time), taken by a write that changes nothing, before
     * anything is read.
     */
    async holdQuotesOf(environment: Environment, domain: string): Promise<void> {
      if (!db.isTransaction) throw new Error('holdQuotesOf runs inside a transaction');
      if (dialect === 'postgres')
        await sql`select pg_advisory_xact_lock(hashtextextended(${`quotes:${environment}:${domain}`}, 0))`.execute(db);
      // A delete by a primary key no quote has: it finds nothing through the index, but a write
      // statement takes the write lock when it starts.
      else await db.deleteFrom('quotes').where('quote_id', '=', '').execute();
    },

    /**
     * Records the reservation on the listing row (x-quote-reservation), where every sale and every
     * read looks for it (listing-reservation.ts), so that a take decides on the row it updates.
     * False when the domain is no longer listed: an order took it meanwhile (on PostgreSQL this
     * UPDATE waits for such an order's transaction, then finds the row sold).
     */
    async reserveListing(
      environment: Environment,
      domain: string,
      partnerId: string,
      endsAt: number,
    ): Promise<boolean> {
      const result = await db
        .updateTable('inventory')
        .set({ reserved_by: partnerId, reserved_until: endsAt })
        .where('environment', '=', environment)
        .where('domain', '=', domain)
        .where('status', '=', 'listed')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * Another partner's reservation of the domain that holds at real time `now`, read from the
     * listing row (listing-reservation.ts): its end, in that partner's business time.
     */
    reservationByOther,

    /**
     * The same for a listing just read: without a read when its row rules out another partner's
     * reservation (`mayBeReservedAgainst`), as nearly every listing's does.
     */
    async reservationOn(
      listing: Pick<InventoryRecord, 'environment' | 'domain' | 'reservation'>,
      partnerId: string,
      now: number,
    ): Promise<{ endsAt: number } | undefined> {
      if (!mayBeReservedAgainst(listing.reservation, partnerId, now)) return undefined;
      return reservationByOther(listing.environment, listing.domain, partnerId, now);
    },

    /**
     * The caller's latest reservation of the domain (x-quote-reservation): the latest end of its
     * quotes, and whether it placed an order for the domain since `orderedSince(end)` (business
     * time, as orders are dated). Undefined when the partner never quoted the domain.
     */
    async ownReservation(
      environment: Environment,
      domain: string,
      partnerId: string,
      orderedSince: (endsAt: number) => number,
    ): Promise<{ endsAt: number; ordered: boolean } | undefined> {
      const latest = await db
        .selectFrom('quotes')
        .select((eb) => eb.fn.max('expires_at').as('ends_at'))
        .where('environment', '=', environment)
        .where('domain', '=', domain)
        .where('partner_id', '=', partnerId)
        .executeTakeFirst();
      if (latest?.ends_at === null || latest?.ends_at === undefined) return undefined;
      const endsAt = Number(latest.ends_at);
      // The partner's latest order of the domain, compared here: a partner has few orders of one
      // domain, and the (domain, partner) index finds them all.
      const order = await db
        .selectFrom('orders')
        .select((eb) => eb.fn.max('created_at').as('latest'))
        .where('partner_id', '=', partnerId)
        .where('domain', '=', domain)
        .where('environment', '=', environment)
        .executeTakeFirst();
      const latestOrder = order?.latest === null || order?.latest === undefined ? undefined : Number(order.latest);
      return { endsAt, ordered: latestOrder !== undefined && latestOrder >= orderedSince(endsAt) };
    },

    async findQuote(quoteId: string): Promise<Database['quotes'] | undefined> {
      return db.selectFrom('quotes').selectAll().where('quote_id', '=', quoteId).executeTakeFirst();
    },

    async insertOrder(order: OrderRow): Promise<void> {
      await db.insertInto('orders').values(order).execute();
    },

    async findOrder(publicId: string): Promise<OrderRow | undefined> {
      return db.selectFrom('orders').selectAll().where('public_id', '=', publicId).executeTakeFirst();
    },

    /** A domain with an order that is still alive (not refunded or cancelled) is sold. */
    async liveOrderFor(environment: Environment, domain: string): Promise<OrderRow | undefined> {
      return db
        .selectFrom('orders')
        .selectAll()
        .where('environment', '=', environment)
        .where('domain', '=', domain)
        .where('status', 'not in', ['REFUNDED', 'CANCELLED'])
        .executeTakeFirst();
    },

    async updateOrder(
      publicId: string,
      patch: Partial<Pick<OrderRow, 'status' | 'held_from' | 'updated_at' | 'transfer_completed_at'>>,
    ): Promise<void> {
      await db.updateTable('orders').set(patch).where('public_id', '=', publicId).execute();
    },

    async appendTimeline(entry: Omit<TimelineRow, 'idx'>): Promise<void> {
      const last = await db
        .selectFrom('order_timeline')
        .select((eb) => eb.fn.max('idx').as('idx'))
        .where('public_id', '=', entry.public_id)
        .executeTakeFirst();
      const idx = last?.idx === null || last?.idx === undefined ? 0 : Number(last.idx) + 1;
      await db
        .insertInto('order_timeline')
        .values({ ...entry, idx })
        .execute();
    },

    async timeline(publicId: string): Promise<TimelineRow[]> {
      return db.selectFrom('order_timeline').selectAll().where('public_id', '=', publicId).orderBy('idx').execute();
    },

    /**
     * One page of a partner's orders, newest first, after the keyset position
     * (created_at, public_id) of the previous page's last row.
     */
    async listOrders(
      filters: OrderFilters,
      limit: number,
      after?: { createdAt: number; publicId: string },
    ): Promise<OrderRow[]> {
      let q = db.selectFrom('orders').selectAll().where('partner_id', '=', filters.partnerId);
      if (filters.status) q = q.where('status', '=', filters.status);
      if (filters.domain) q = q.where('domain', '=', filters.domain);
      if (filters.from !== undefined) q = q.where('created_at', '>=', filters.from);
      if (filters.to !== undefined) q = q.where('created_at', '<', filters.to);
      if (after) {
        q = q.where((eb) => eb(eb.refTuple('created_at', 'public_id'), '<', eb.tuple(after.createdAt, after.publicId)));
      }
      return q.orderBy('created_at', 'desc').orderBy('public_id', 'desc').limit(limit).execute();
    },
  };
}

export type OrderRepository = ReturnType<typeof orderRepository>;
