// A partner-collected order as the benchmarks seed or place it: the row POST /orders would write.
import type { OrderRow } from '../../../server/store/orders.ts';

export function benchOrder(
  o: Pick<OrderRow, 'public_id' | 'partner_id' | 'domain' | 'created_at'> & Partial<OrderRow>,
): OrderRow {
  return {
    environment: 'sandbox',
    status: 'EXTERNALLY_PAID',
    held_from: null,
    sale_price_cents: 10_000,
    currency: 'USD',
    payment_model: 'partner_collected',
    buyer_email: 'bench@example.org',
    buyer_country: null,
    buyer_account: null,
    quote_id: null,
    external_payment_ref: null,
    checkout_session_id: null,
    updated_at: o.created_at,
    transfer_completed_at: null,
    ...o,
  };
}
