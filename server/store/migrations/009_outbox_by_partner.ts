// 009: the outbox by partner, newest first, for GET /api/partner/webhooks (its recent
// deliveries): without it the query walks the whole outbox backwards to find one partner's rows.
import type { Kysely, Migration } from 'kysely';

export function outboxByPartner(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('outbox_by_partner').on('outbox').columns(['partner_id', 'id']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropIndex('outbox_by_partner').ifExists().execute();
    },
  };
}
