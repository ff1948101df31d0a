// Referral links, clicks, attributed sales and the commission ledger. The ledger is append-only
// and its running balance is summed along ledger order when read, so concurrent writers can
// never leave a stored balance that disagrees with the entries.
import { sql, type Kysely } from 'kysely';
import { exactCents } from '../domain/money.ts';
import { BALANCE_EFFECT } from '../domain/referral.ts';
import type {
  CommissionLedgerTable,
  ReferralClicksTable,
  ReferralLinksTable,
  ReferralSalesTable,
} from './checkout-referral-schema.ts';
import type { Database } from './schema.ts';

export type LinkRow = ReferralLinksTable;
export type ClickRow = ReferralClicksTable;
export type SaleRow = ReferralSalesTable;
export type LedgerRow = Omit<CommissionLedgerTable, 'seq'> & { seq: number };
export type LedgerStatus = CommissionLedgerTable['status'];

export interface Window {
  /** Inclusive, epoch ms. */
  from?: number | undefined;
  /** Exclusive, epoch ms. */
  to?: number | undefined;
}

export interface LinkStatsRow {
  clicks: number;
  checkouts_started: number;
  sales: number;
  gmv_cents: number;
  commission_cents: number;
}

const DAY_MS = 86_400_000;
const UNDONE = ['REFUNDED', 'CANCELLED'];
// Sums are read as text and converted exactly (exactCents): a driver hands a large integer back
// as a double, and a total past 2^53 would come out rounded instead of refused.
// The running balance by the domain's rule (BALANCE_EFFECT: x-balance-effect of CommissionStatus).
const balanceCases = sql.join(
  Object.entries(BALANCE_EFFECT).map(
    ([status, effect]) => sql`when ${sql.lit(status)} then ${sql.lit(effect)} * amount_cents`,
  ),
  sql` `,
);
const signedAmount = sql<string>`cast(sum(case status ${balanceCases} end) over (order by seq) as text)`;

export function referralRepository(db: Kysely<Database>) {
  return {
    async insertLink(row: LinkRow): Promise<void> {
      await db.insertInto('referral_links').values(row).execute();
    },

    async findLinkByCode(code: string): Promise<LinkRow | undefined> {
      return db.selectFrom('referral_links').selectAll().where('code', '=', code).executeTakeFirst();
    },

    /** Newest first, after the keyset position (created_at, link_id) of the previous page. */
    async listLinks(
      partnerId: string,
      type: string | undefined,
      limit: number,
      after?: { createdAt: number; linkId: string },
    ): Promise<LinkRow[]> {
      let q = db.selectFrom('referral_links').selectAll().where('partner_id', '=', partnerId);
      if (type) q = q.where('type', '=', type as LinkRow['type']);
      if (after) {
        q = q.where((eb) => eb(eb.refTuple('created_at', 'link_id'), '<', eb.tuple(after.createdAt, after.linkId)));
      }
      return q.orderBy('created_at', 'desc').orderBy('link_id', 'desc').limit(limit).execute();
    },

    /** Lifetime statistics of each link; refunded or cancelled sales do not count. */
    async linkStats(linkIds: string[]): Promise<Map<string, LinkStatsRow>> {
      const stats = new Map<string, LinkStatsRow>(
        linkIds.map((id) => [id, { clicks: 0, checkouts_started: 0, sales: 0, gmv_cents: 0, commission_cents: 0 }]),
      );
      if (linkIds.length === 0) return stats;
      const clicks = await db
        .selectFrom('referral_clicks')
        .select(['link_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('link_id', 'in', linkIds)
        .groupBy('link_id')
        .execute();
      for (const c of clicks) stats.get(c.link_id)!.clicks = Number(c.n);
      const started = await db
        .selectFrom('checkout_sessions')
        .select(['link_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('link_id', 'in', linkIds)
        .groupBy('link_id')
        .execute();
      for (const s of started) if (s.link_id) stats.get(s.link_id)!.checkouts_started = Number(s.n);
      const sales = await db
        .selectFrom('referral_sales')
        .innerJoin('orders', 'orders.public_id', 'referral_sales.public_id')
        .select([
          'referral_sales.link_id',
          (eb) => eb.fn.countAll<number>().as('n'),
          sql<string>`cast(sum(referral_sales.amount_cents) as text)`.as('gmv'),
          sql<string>`cast(sum(referral_sales.commission_cents) as text)`.as('commission'),
        ])
        .where('referral_sales.link_id', 'in', linkIds)
        .where('orders.status', 'not in', UNDONE)
        .groupBy('referral_sales.link_id')
        .execute();
      for (const s of sales)
        Object.assign(stats.get(s.link_id)!, {
          sales: Number(s.n),
          gmv_cents: exactCents(s.gmv),
          commission_cents: exactCents(s.commission),
        });
      return stats;
    },

    async insertClick(row: ClickRow): Promise<void> {
      await db.insertInto('referral_clicks').values(row).execute();
    },

    async findClick(clickId: string): Promise<ClickRow | undefined> {
      return db.selectFrom('referral_clicks').selectAll().where('click_id', '=', clickId).executeTakeFirst();
    },

    async clickReport(
      partnerId: string,
      window: Window,
    ): Promise<{
      total: number;
      byLink: Array<{ link_id: string; clicks: number }>;
      byDay: Array<{ day: number; clicks: number }>;
    }> {
      let base = db.selectFrom('referral_clicks').where('partner_id', '=', partnerId);
      if (window.from !== undefined) base = base.where('created_at', '>=', window.from);
      if (window.to !== undefined) base = base.where('created_at', '<', window.to);
      const byLink = await base
        .select(['link_id', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('link_id')
        .execute();
      // Epoch ms are integers in both dialects, so this division is the UTC day number.
      const day = sql<number>`created_at / ${sql.lit(DAY_MS)}`;
      const byDay = await base
        .select([day.as('day'), (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy(day)
        .execute();
      const links = byLink
        .map((r) => ({ link_id: r.link_id, clicks: Number(r.n) }))
        .sort((a, b) => b.clicks - a.clicks || (a.link_id < b.link_id ? -1 : 1));
      return {
        total: links.reduce((sum, l) => sum + l.clicks, 0),
        byLink: links,
        byDay: byDay.map((r) => ({ day: Number(r.day), clicks: Number(r.n) })).sort((a, b) => a.day - b.day),
      };
    },

    async insertSale(row: SaleRow): Promise<void> {
      await db.insertInto('referral_sales').values(row).execute();
    },

    async findSale(publicId: string): Promise<SaleRow | undefined> {
      return db.selectFrom('referral_sales').selectAll().where('public_id', '=', publicId).executeTakeFirst();
    },

    /** Newest first, after the keyset position (sold_at, public_id). */
    async listSales(
      partnerId: string,
      window: Window,
      limit: number,
      after?: { soldAt: number; publicId: string },
    ): Promise<SaleRow[]> {
      let q = db.selectFrom('referral_sales').selectAll().where('partner_id', '=', partnerId);
      if (window.from !== undefined) q = q.where('sold_at', '>=', window.from);
      if (window.to !== undefined) q = q.where('sold_at', '<', window.to);
      if (after)
        q = q.where((eb) => eb(eb.refTuple('sold_at', 'public_id'), '<', eb.tuple(after.soldAt, after.publicId)));
      return q.orderBy('sold_at', 'desc').orderBy('public_id', 'desc').limit(limit).execute();
    },

    /** The funnel over a window: clicks, checkouts started, and sales not refunded or cancelled. */
    async funnel(
      partnerId: string,
      window: Required<Window>,
    ): Promise<{
      clicks: number;
      checkouts_started: number;
      sales: number;
      gmv_cents: number;
      commission_cents: number;
    }> {
      const clicks = await db
        .selectFrom('referral_clicks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('partner_id', '=', partnerId)
        .where('created_at', '>=', window.from)
        .where('created_at', '<', window.to)
        .executeTakeFirst();
      const started = await db
        .selectFrom('checkout_sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('partner_id', '=', partnerId)
        .where('referred_at', '>=', window.from)
        .where('referred_at', '<', window.to)
        .executeTakeFirst();
      const sales = await db
        .selectFrom('referral_sales')
        .innerJoin('orders', 'orders.public_id', 'referral_sales.public_id')
        .select([
          (eb) => eb.fn.countAll<number>().as('n'),
          sql<string | null>`cast(sum(referral_sales.amount_cents) as text)`.as('gmv'),
          sql<string | null>`cast(sum(referral_sales.commission_cents) as text)`.as('commission'),
        ])
        .where('referral_sales.partner_id', '=', partnerId)
        .where('referral_sales.sold_at', '>=', window.from)
        .where('referral_sales.sold_at', '<', window.to)
        .where('orders.status', 'not in', UNDONE)
        .executeTakeFirst();
      return {
        clicks: Number(clicks?.n ?? 0),
        checkouts_started: Number(started?.n ?? 0),
        sales: Number(sales?.n ?? 0),
        gmv_cents: exactCents(sales?.gmv),
        commission_cents: exactCents(sales?.commission),
      };
    },

    async appendLedger(entry: Omit<LedgerRow, 'seq'>): Promise<void> {
      await db.insertInto('commission_ledger').values(entry).execute();
    },

    /** The latest ledger status of each order's commission. */
    async latestStatuses(publicIds: string[]): Promise<Map<string, LedgerStatus>> {
      const out = new Map<string, LedgerStatus>();
      if (publicIds.length === 0) return out;
      const rows = await db
        .selectFrom('commission_ledger')
        .select(['public_id', 'status', 'seq'])
        .where('public_id', 'in', publicIds)
        .orderBy('seq')
        .execute();
      for (const r of rows) out.set(r.public_id, r.status);
      return out;
    },

    /** Orders whose commission currently stands at `status`, oldest entry first. */
    async commissionsAt(
      partnerId: string,
      status: LedgerStatus,
    ): Promise<Array<{ public_id: string; amount_cents: number; currency: string }>> {
      const rows = await db
        .selectFrom('commission_ledger')
        .select(['public_id', 'status', 'amount_cents', 'currency', 'seq'])
        .where('partner_id', '=', partnerId)
        .orderBy('seq')
        .execute();
      const latest = new Map<string, (typeof rows)[number]>();
      for (const r of rows) latest.set(r.public_id, r);
      return [...latest.values()]
        .filter((r) => r.status === status)
        .map((r) => ({ public_id: r.public_id, amount_cents: Number(r.amount_cents), currency: r.currency }));
    },

    /**
     * One page of the ledger in ledger order, each row with the running balance after it
     * (computed over the whole ledger, whatever the filters).
     */
    async listLedger(
      partnerId: string,
      filters: Window & { status?: string | undefined },
      limit: number,
      afterSeq?: number,
    ): Promise<Array<LedgerRow & { balance_cents: number }>> {
      const ledger = db
        .selectFrom('commission_ledger')
        .selectAll()
        .select(signedAmount.as('balance_cents'))
        .where('partner_id', '=', partnerId)
        .as('l');
      let q = db.selectFrom(ledger).selectAll();
      if (filters.status) q = q.where('l.status', '=', filters.status as LedgerStatus);
      if (filters.from !== undefined) q = q.where('l.created_at', '>=', filters.from);
      if (filters.to !== undefined) q = q.where('l.created_at', '<', filters.to);
      if (afterSeq !== undefined) q = q.where('l.seq', '>', afterSeq);
      const rows = await q.orderBy('l.seq').limit(limit).execute();
      return rows.map((r) => ({
        ...r,
        seq: Number(r.seq),
        amount_cents: Number(r.amount_cents),
        balance_cents: exactCents(r.balance_cents),
      }));
    },

    async balance(partnerId: string): Promise<number> {
      const row = await db
        .selectFrom('commission_ledger')
        .select(
          sql<
            string | null
          >`cast(sum(case status when 'accrued' then amount_cents when 'pending' then 0 else -amount_cents end) as text)`.as(
            'b',
          ),
        )
        .where('partner_id', '=', partnerId)
        .executeTakeFirst();
      return exactCents(row?.b);
    },

    /** The partner's referral rate: its setting when the operator made one, else the default. */
    async referralBps(partnerId: string, fallback: number): Promise<number> {
      const row = await db
        .selectFrom('partner_commission_rates')
        .select('referral_bps')
        .where('partner_id', '=', partnerId)
        .executeTakeFirst();
      return row ? Number(row.referral_bps) : fallback;
    },

    /** Referral payouts (kind referral_commission) newest first, and their total over the window. */
    async listPayouts(partnerId: string, window: Window, limit: number, after?: { paidAt: number; payoutId: string }) {
      let base = db.selectFrom('payouts').where('partner_id', '=', partnerId).where('kind', '=', 'referral_commission');
      if (window.from !== undefined) base = base.where('paid_at', '>=', window.from);
      if (window.to !== undefined) base = base.where('paid_at', '<', window.to);
      const total = await base.select(sql<string | null>`cast(sum(amount_cents) as text)`.as('t')).executeTakeFirst();
      let q = base.selectAll();
      if (after)
        q = q.where((eb) => eb(eb.refTuple('paid_at', 'payout_id'), '<', eb.tuple(after.paidAt, after.payoutId)));
      const rows = await q.orderBy('paid_at', 'desc').orderBy('payout_id', 'desc').limit(limit).execute();
      return { rows, totalCents: exactCents(total?.t) };
    },
  };
}

export type ReferralRepository = ReturnType<typeof referralRepository>;
