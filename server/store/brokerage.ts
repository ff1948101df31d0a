// Brokerage cases and their timelines. The tables are declared here rather than in schema.ts so
// this feature's storage stays in its own files; every method runs on the executor it is given,
// so a move, its timeline entry and its event share one transaction.
import type { Kysely } from 'kysely';
import type { Database, Environment } from './schema.ts';

export type BrokerageCasesTable = {
  case_id: string;
  partner_id: string;
  environment: Environment;
  domain: string;
  /** `domain` while the case is open, null once it is final (one open case per domain). */
  open_domain: string | null;
  tier: string;
  buyer_email: string;
  budget_cents: number;
  currency: string;
  status: string;
  final_price_cents: number | null;
  /**
   * Kept as issued, not hashed: every read of the case hands the progress URL out again. It is
   * random (32 bytes), never derived from the case id.
   */
  progress_token: string;
  created_at: number;
  updated_at: number;
};

export type BrokerageTimelineTable = {
  case_id: string;
  idx: number;
  status: string;
  event_id: string | null;
  at: number;
  note: string | null;
};

// A type alias, not an interface: withTables<T> needs T to have an index signature.
export type BrokerageTables = {
  brokerage_cases: BrokerageCasesTable;
  brokerage_timeline: BrokerageTimelineTable;
};

export type CaseRow = BrokerageCasesTable;
export type CaseTimelineRow = BrokerageTimelineTable;

export interface CaseFilters {
  partnerId: string;
  status?: string | undefined;
  /** Inclusive, epoch ms. */
  from?: number | undefined;
  /** Exclusive, epoch ms. */
  to?: number | undefined;
}

export function brokerageRepository(base: Kysely<Database>) {
  const db = base.withTables<BrokerageTables>();
  return {
    /** Inserts an open case; false when the domain already has an open case (any partner). */
    async insertCase(row: CaseRow): Promise<boolean> {
      const inserted = await db
        .insertInto('brokerage_cases')
        .values(row)
        .onConflict((oc) => oc.columns(['environment', 'open_domain']).doNothing())
        .returning('case_id')
        .executeTakeFirst();
      return inserted !== undefined;
    },

    async hasOpenCase(environment: Environment, domain: string): Promise<boolean> {
      const row = await db
        .selectFrom('brokerage_cases')
        .select('case_id')
        .where('environment', '=', environment)
        .where('open_domain', '=', domain)
        .executeTakeFirst();
      return row !== undefined;
    },

    async findCase(caseId: string): Promise<CaseRow | undefined> {
      return db.selectFrom('brokerage_cases').selectAll().where('case_id', '=', caseId).executeTakeFirst();
    },

    async findByToken(token: string): Promise<CaseRow | undefined> {
      return db.selectFrom('brokerage_cases').selectAll().where('progress_token', '=', token).executeTakeFirst();
    },

    /**
     * Moves a case out of `fromStatus`; false when another move got there first (the caller
     * answers as if it had read the new status).
     */
    async updateCase(
      caseId: string,
      fromStatus: string,
      patch: Pick<CaseRow, 'status' | 'final_price_cents' | 'updated_at' | 'open_domain'>,
    ): Promise<boolean> {
      const result = await db
        .updateTable('brokerage_cases')
        .set(patch)
        .where('case_id', '=', caseId)
        .where('status', '=', fromStatus)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async appendTimeline(entry: Omit<CaseTimelineRow, 'idx'>): Promise<void> {
      const last = await db
        .selectFrom('brokerage_timeline')
        .select((eb) => eb.fn.max('idx').as('idx'))
        .where('case_id', '=', entry.case_id)
        .executeTakeFirst();
      const idx = last?.idx === null || last?.idx === undefined ? 0 : Number(last.idx) + 1;
      await db
        .insertInto('brokerage_timeline')
        .values({ ...entry, idx })
        .execute();
    },

    async timeline(caseId: string): Promise<CaseTimelineRow[]> {
      return db.selectFrom('brokerage_timeline').selectAll().where('case_id', '=', caseId).orderBy('idx').execute();
    },

    /** One page of a partner's cases, newest first, after the keyset position (created_at, case_id). */
    async listCases(
      filters: CaseFilters,
      limit: number,
      after?: { createdAt: number; caseId: string },
    ): Promise<CaseRow[]> {
      let q = db.selectFrom('brokerage_cases').selectAll().where('partner_id', '=', filters.partnerId);
      if (filters.status) q = q.where('status', '=', filters.status);
      if (filters.from !== undefined) q = q.where('created_at', '>=', filters.from);
      if (filters.to !== undefined) q = q.where('created_at', '<', filters.to);
      if (after) {
        q = q.where((eb) => eb(eb.refTuple('created_at', 'case_id'), '<', eb.tuple(after.createdAt, after.caseId)));
      }
      return q.orderBy('created_at', 'desc').orderBy('case_id', 'desc').limit(limit).execute();
    },
  };
}

export type BrokerageRepository = ReturnType<typeof brokerageRepository>;
