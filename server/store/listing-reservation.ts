// The one statement of the reservation rule (`x-quote-reservation` of POST /quotes): another
// partner's reservation holds a listing. The listing row carries its latest reservation, written
// by the quote in its own transaction (orders.ts `reserveListing`); at most one other partner's
// can be live, since a quote is refused while another's is. Every read that asks whether a domain
// is held (availability, search, a quote, a checkout session, an order's sight) and every write
// that takes a listing for a sale (an order, a hosted checkout's payment) asks it here, on that
// row: a take decides on the row as its UPDATE finds it, so a quote committed while the UPDATE
// waited is seen. The quotes table keeps the history the cool-down needs, and no reservation.
import { sql, type RawBuilder } from 'kysely';

/**
 * SQL, on a row of `inventory`: true when a partner other than `partnerId` reserves it at real
 * time `now` (ms). The reservation's end is in its partner's business time, so it is compared
 * with that partner's clock: real time plus its test-clock offset, read only when the row names
 * another partner (a CASE is evaluated lazily; an AND need not be). Never null.
 */
export function reservedByOther(partnerId: unknown, now: unknown): RawBuilder<boolean> {
  return sql<boolean>`coalesce(case when inventory.reserved_by is null or inventory.reserved_by = ${partnerId} then false else inventory.reserved_until > ${now} + coalesce((select partners.clock_offset_ms from partners where partners.id = inventory.reserved_by), 0) end, false)`;
}
