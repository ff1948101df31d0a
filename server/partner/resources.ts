// Rows to the resources the contract describes. The types come from generated/, so a field
// the spec adds or renames fails the typecheck here.
import type { components } from '../../generated/partner.d.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import type { OrderRow, TimelineRow } from '../store/orders.ts';

type Schemas = components['schemas'];
export type OrderResource = Schemas['Order'];
export type OrderDetailResource = Schemas['OrderDetail'];
export type EventOrder = Schemas['EventOrder'];

export function toOrder(row: OrderRow): OrderResource {
  return {
    public_id: row.public_id,
    domain: row.domain,
    status: row.status as OrderResource['status'],
    sale_price_cents: row.sale_price_cents,
    currency: row.currency,
    payment_model: row.payment_model,
    buyer: { email: row.buyer_email, country: row.buyer_country, account: row.buyer_account },
    quote_id: row.quote_id,
    external_payment_ref: row.external_payment_ref,
    checkout_session_id: row.checkout_session_id,
    created_at: rfc3339(row.created_at),
    updated_at: rfc3339(row.updated_at),
  };
}

export function toOrderDetail(row: OrderRow, timeline: TimelineRow[]): OrderDetailResource {
  return {
    ...toOrder(row),
    timeline: timeline.map((t) => ({
      status: t.status as OrderResource['status'],
      event_type: t.event_type as Schemas['TimelineEntry']['event_type'],
      event_id: t.event_id,
      at: rfc3339(t.at),
      note: t.note,
    })),
  };
}

/** The order as an event carries it: frozen at the moment of the event. */
export function eventOrder(
  row: Pick<OrderRow, 'public_id' | 'domain' | 'status' | 'sale_price_cents' | 'currency'>,
): EventOrder {
  return {
    public_id: row.public_id,
    domain: row.domain,
    status: row.status as EventOrder['status'],
    sale_price_cents: row.sale_price_cents,
    currency: row.currency,
  };
}
