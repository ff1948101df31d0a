// Hosted checkout sessions. A session is paid once: the claim is the conditional update.
import type { Kysely } from 'kysely';
import type { CheckoutSessionsTable } from './checkout-referral-schema.ts';
import type { Database } from './schema.ts';

export type CheckoutSessionRow = CheckoutSessionsTable;

export function checkoutRepository(db: Kysely<Database>) {
  return {
    async insertSession(row: CheckoutSessionRow): Promise<void> {
      await db.insertInto('checkout_sessions').values(row).execute();
    },

    async findSession(sessionId: string): Promise<CheckoutSessionRow | undefined> {
      return db.selectFrom('checkout_sessions').selectAll().where('session_id', '=', sessionId).executeTakeFirst();
    },

    /** Ties the session to the buyer's referral click; the first click seen wins. */
    async attachReferral(sessionId: string, clickId: string, linkId: string, at: number): Promise<void> {
      await db
        .updateTable('checkout_sessions')
        .set({ click_id: clickId, link_id: linkId, referred_at: at })
        .where('session_id', '=', sessionId)
        .where('click_id', 'is', null)
        .execute();
    },

    /**
     * Marks the session paid by `orderId`; false when another payment claimed it first (on
     * PostgreSQL the second writer waits for the first and then matches no row).
     */
    async claimPayment(sessionId: string, orderId: string, at: number): Promise<boolean> {
      const result = await db
        .updateTable('checkout_sessions')
        .set({ order_id: orderId, paid_at: at })
        .where('session_id', '=', sessionId)
        .where('order_id', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
