// Settlement statements, the orders they settled, payouts and per-partner commission rates.
// Every method runs on the executor it was built with, so a run can settle a partner's orders
// and write its statement in one transaction.
import { sql, type Kysely } from 'kysely';
import { DEFAULT_COMMISSION_RATES, type CommissionRates } from '../domain/settlement.ts';
import type { Database, Environment, OrdersTable } from './schema.ts';

export type StatementRow = Database['statements'];
export type StatementOrderRow = Database['statement_orders'];
export type PayoutRow = Database['payouts'];
export type PayoutKind = PayoutRow['kind'];

export interface StatementWithOrders extends StatementRow {
  /** public_id of the settled orders, in the order they were settled. */
  orders: string[];
}

export interface SettlementPartner {
  id: string;
  environment: Environment;
  clockOffsetMs: number;
  createdAt: number;
}

/** Inclusive `from`, exclusive `to`, epoch ms. */
export interface Window {
  from?: number | undefined;
  to?: number | undefined;
}

export interface TransactionFilters extends Window {
  partnerId: string;
  status?: string | undefined;
  paymentModel?: string | undefined;
}

export interface TransactionRow extends OrdersTable {
  statement_id: string | null;
  settled_at: number | null;
  settled_commission_cents: number | null;
}

/** A unique-key violation, in either dialect: another writer got there first. */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    (typeof message === 'string' && /UNIQUE constraint failed/.test(message))
  );
}

const num = (v: number | string | bigint | null | undefined): number | null =>
  v === null || v === undefined ? null : Number(v);

export function settlementRepository(db: Kysely<Database>) {
  async function ordersOf(statementIds: readonly string[]): Promise<Map<string, string[]>> {
    const byStatement = new Map<string, string[]>(statementIds.map((id) => [id, []]));
    if (statementIds.length === 0) return byStatement;
    const rows = await db
      .selectFrom('statement_orders')
      .select(['statement_id', 'public_id'])
      .where('statement_id', 'in', [...statementIds])
      .orderBy('statement_id')
      .orderBy('settled_at')
      .orderBy('public_id')
      .execute();
    for (const r of rows) byStatement.get(r.statement_id)?.push(r.public_id);
    return byStatement;
  }

  const withOrders = async (rows: StatementRow[]): Promise<StatementWithOrders[]> => {
    const orders = await ordersOf(rows.map((r) => r.statement_id));
    return rows.map((r) => ({ ...r, orders: orders.get(r.statement_id) ?? [] }));
  };

  return {
    async commissionRates(partnerId: string): Promise<CommissionRates> {
      const row = await db
        .selectFrom('partner_commission_rates')
        .selectAll()
        .where('partner_id', '=', partnerId)
        .executeTakeFirst();
      if (!row) return DEFAULT_COMMISSION_RATES;
      return {
        partnerCollected: row.partner_collected_bps,
        serviceCollected: row.service_collected_bps,
        referral: row.referral_bps,
        brokerage: row.brokerage_bps,
      };
    },

    async setCommissionRates(partnerId: string, rates: CommissionRates, now: number): Promise<void> {
      const values = {
        partner_collected_bps: rates.partnerCollected,
        service_collected_bps: rates.serviceCollected,
        referral_bps: rates.referral,
        brokerage_bps: rates.brokerage,
        updated_at: now,
      };
      await db
        .insertInto('partner_commission_rates')
        .values({ partner_id: partnerId, ...values })
        .onConflict((oc) => oc.column('partner_id').doUpdateSet(values))
        .execute();
    },

    /** Every partner, in partner_id order (the order a run answers in). */
    async partners(): Promise<SettlementPartner[]> {
      const rows = await db.selectFrom('partners').selectAll().orderBy('id').execute();
      return rows.map((r) => ({
        id: r.id,
        environment: r.environment,
        clockOffsetMs: Number(r.clock_offset_ms),
        createdAt: Number(r.created_at),
      }));
    },

    async lastStatementEnd(partnerId: string): Promise<number | undefined> {
      const row = await db
        .selectFrom('statements')
        .select('period_end')
        .where('partner_id', '=', partnerId)
        .orderBy('period_end', 'desc')
        .limit(1)
        .executeTakeFirst();
      return num(row?.period_end) ?? undefined;
    },

    /** The partner's delivered, not yet settled orders that reached TRANSFER_COMPLETED before `periodEnd`. */
    async ordersToSettle(partnerId: string, periodEnd: number): Promise<OrdersTable[]> {
      return db
        .selectFrom('orders')
        .selectAll()
        .where('partner_id', '=', partnerId)
        .where('status', '=', 'TRANSFER_COMPLETED')
        .where('transfer_completed_at', '<', periodEnd)
        .orderBy('transfer_completed_at')
        .orderBy('public_id')
        .execute();
    },

    /** Throws a unique violation (isUniqueViolation) when the partner's period was already written. */
    async insertStatement(row: StatementRow): Promise<void> {
      await db.insertInto('statements').values(row).execute();
    },

    async insertStatementOrders(rows: readonly StatementOrderRow[]): Promise<void> {
      if (rows.length > 0)
        await db
          .insertInto('statement_orders')
          .values([...rows])
          .execute();
    },

    async findStatement(statementId: string): Promise<StatementWithOrders | undefined> {
      const row = await db
        .selectFrom('statements')
        .selectAll()
        .where('statement_id', '=', statementId)
        .executeTakeFirst();
      return row ? (await withOrders([row]))[0] : undefined;
    },

    /** A page of a partner's statements, newest period first; the window applies to period_end. */
    async listStatements(
      filters: Window & { partnerId: string },
      limit: number,
      after?: { periodEnd: number; statementId: string },
    ): Promise<StatementWithOrders[]> {
      let q = db.selectFrom('statements').selectAll().where('partner_id', '=', filters.partnerId);
      if (filters.from !== undefined) q = q.where('period_end', '>=', filters.from);
      if (filters.to !== undefined) q = q.where('period_end', '<', filters.to);
      if (after) {
        q = q.where((eb) =>
          eb(eb.refTuple('period_end', 'statement_id'), '<', eb.tuple(after.periodEnd, after.statementId)),
        );
      }
      return withOrders(await q.orderBy('period_end', 'desc').orderBy('statement_id', 'desc').limit(limit).execute());
    },

    /** The exact total of a partner's payouts of one kind (summed as text: a driver's double would round it). */
    async payoutTotal(partnerId: string, kind: PayoutKind): Promise<bigint> {
      const row = await db
        .selectFrom('payouts')
        .select(sql<string | null>`cast(sum(amount_cents) as text)`.as('t'))
        .where('partner_id', '=', partnerId)
        .where('kind', '=', kind)
        .executeTakeFirst();
      return BigInt(row?.t ?? 0);
    },

    async insertPayout(row: PayoutRow): Promise<void> {
      await db.insertInto('payouts').values(row).execute();
    },

    /** A page of a partner's payouts, newest first; the window applies to paid_at. */
    async listPayouts(
      filters: Window & { partnerId: string; kind?: PayoutKind | undefined },
      limit: number,
      after?: { paidAt: number; payoutId: string },
    ): Promise<PayoutRow[]> {
      let q = db.selectFrom('payouts').selectAll().where('partner_id', '=', filters.partnerId);
      if (filters.kind) q = q.where('kind', '=', filters.kind);
      if (filters.from !== undefined) q = q.where('paid_at', '>=', filters.from);
      if (filters.to !== undefined) q = q.where('paid_at', '<', filters.to);
      if (after) {
        q = q.where((eb) => eb(eb.refTuple('paid_at', 'payout_id'), '<', eb.tuple(after.paidAt, after.payoutId)));
      }
      return q.orderBy('paid_at', 'desc').orderBy('payout_id', 'desc').limit(limit).execute();
    },

    /**
     * A partner's sales with what settled them, newest first. Without `limit`, every matching
     * row (the totals are over the whole filtered set, not a page).
     */
    async transactions(
      filters: TransactionFilters,
      limit?: number,
      after?: { createdAt: number; publicId: string },
    ): Promise<TransactionRow[]> {
      let q = db
        .selectFrom('orders')
        .leftJoin('statement_orders', 'statement_orders.public_id', 'orders.public_id')
        .selectAll('orders')
        .select([
          'statement_orders.statement_id',
          'statement_orders.settled_at',
          'statement_orders.commission_cents as settled_commission_cents',
        ])
        .where('orders.partner_id', '=', filters.partnerId);
      if (filters.status) q = q.where('orders.status', '=', filters.status);
      if (filters.paymentModel)
        q = q.where('orders.payment_model', '=', filters.paymentModel as OrdersTable['payment_model']);
      if (filters.from !== undefined) q = q.where('orders.created_at', '>=', filters.from);
      if (filters.to !== undefined) q = q.where('orders.created_at', '<', filters.to);
      if (after) {
        q = q.where((eb) =>
          eb(eb.refTuple('orders.created_at', 'orders.public_id'), '<', eb.tuple(after.createdAt, after.publicId)),
        );
      }
      q = q.orderBy('orders.created_at', 'desc').orderBy('orders.public_id', 'desc');
      if (limit !== undefined) q = q.limit(limit);
      const rows = await q.execute();
      return rows.map((r) => ({
        ...r,
        settled_at: num(r.settled_at),
        settled_commission_cents: num(r.settled_commission_cents),
      }));
    },
  };
}

export type SettlementRepository = ReturnType<typeof settlementRepository>;
