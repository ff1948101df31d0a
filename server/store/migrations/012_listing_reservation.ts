// 012: a listing carries its live reservation (the partner whose quote reserves it, and until when
// in that partner's business time), beside the quotes that record it. A new order takes the
// listing with one UPDATE whose condition includes the reservation, so the check and the take are
// one act on one row: a quote committed while that UPDATE waited for the row is seen (PostgreSQL
// re-reads the row it updates, never the other tables of a statement begun earlier), and the
// quote's own UPDATE of the row waits for an order that has taken it and then finds it sold
// (POST /quotes: a quote and another partner's order at the same instant are decided one after
// the other).
// Filled from the quotes already recorded: the latest one of each listed domain. From then on the
// row is the one place the reservation is read (listing-reservation.ts).
import { sql, type Kysely, type Migration } from 'kysely';
import { columnTypes, type Dialect } from './types.ts';

export function listingReservation(dialect: Dialect): Migration {
  const { big } = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('inventory').addColumn('reserved_by', 'text').execute();
      await db.schema.alterTable('inventory').addColumn('reserved_until', big).execute();
      // The latest reservation is the quote whose end is latest in real time: each end is in its
      // partner's business time, its test clock's offset ahead of real time.
      const latest = (column: string) =>
        sql`(select ${sql.ref(`q.${column}`)} from quotes q left join partners p on p.id = q.partner_id where q.environment = inventory.environment and q.domain = inventory.domain order by q.expires_at - coalesce(p.clock_offset_ms, 0) desc limit 1)`;
      await sql`update inventory set reserved_until = ${latest('expires_at')}, reserved_by = ${latest('partner_id')}
        where exists (select 1 from quotes q where q.environment = inventory.environment and q.domain = inventory.domain)`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('inventory').dropColumn('reserved_until').execute();
      await db.schema.alterTable('inventory').dropColumn('reserved_by').execute();
    },
  };
}
