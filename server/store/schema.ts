// The database tables, as Kysely sees them. Times are epoch milliseconds (bigint in PostgreSQL,
// read back as numbers); booleans are 0/1 and JSON is text, so both dialects store the same values.
import type { Generated } from 'kysely';

export type Environment = 'sandbox' | 'live';

export interface PartnersTable {
  id: string;
  environment: Environment;
  /** Added to real time to give the partner's business time (the sandbox test clock). */
  clock_offset_ms: number;
  created_at: number;
}

export interface CredentialsTable {
  key_id: string;
  partner_id: string;
  environment: Environment;
  /** AES-256-GCM ciphertext of the secret: it must be recoverable to verify HMACs. */
  secret_enc: string;
  scopes: string;
  affiliate: number;
  approved: number;
  /** JSON object of per-class overrides, e.g. {"write": 100}. */
  rate_limits: string;
  created_at: number;
}

/** PostgreSQL only; SQLite logs its nonces in `nonce_log` (migrations/008_nonce_log.ts). */
export interface NoncesTable {
  key_id: string;
  nonce: string;
  expires_at: number;
}

/** SQLite only: append-only, indexed in memory (store/nonce-ledger.ts). */
export interface NonceLogTable {
  seq: Generated<number>;
  key_id: string;
  nonce: string;
  expires_at: number;
}

export interface RateCountersTable {
  /** `<key id>:<class>` */
  bucket: string;
  /** Requests seen in the current window, refused ones included. */
  count: number;
  window_start: number;
  expires_at: number;
}

export interface InventoryTable {
  environment: Environment;
  domain: string;
  label: string;
  tld: string;
  price_cents: number;
  floor_cents: number;
  currency: string;
  status: 'listed' | 'sold';
  category: string;
  keywords: string;
  listed_at: number;
  /**
   * The latest reservation (x-quote-reservation), the one place it is kept: the partner whose
   * quote reserves the domain and its end in that partner's business time (written by orders.ts
   * `reserveListing`, read by listing-reservation.ts). Stale once ended; null when never quoted.
   */
  reserved_by?: string | null;
  reserved_until?: number | null;
}

export interface QuotesTable {
  quote_id: string;
  partner_id: string;
  environment: Environment;
  domain: string;
  price_cents: number;
  /** Business time of the quoting partner. */
  expires_at: number;
  created_at: number;
}

export interface OrdersTable {
  public_id: string;
  partner_id: string;
  environment: Environment;
  domain: string;
  status: string;
  held_from: string | null;
  sale_price_cents: number;
  currency: string;
  payment_model: 'partner_collected' | 'service_collected';
  buyer_email: string;
  buyer_country: string | null;
  buyer_account: string | null;
  quote_id: string | null;
  external_payment_ref: string | null;
  checkout_session_id: string | null;
  created_at: number;
  updated_at: number;
  transfer_completed_at: number | null;
}

export interface OrderTimelineTable {
  public_id: string;
  idx: number;
  status: string;
  event_type: string | null;
  event_id: string | null;
  at: number;
  note: string | null;
}

export interface EventsTable {
  seq: Generated<number>;
  id: string;
  partner_id: string;
  type: string;
  created_at: number;
  /** The whole event envelope as delivered and listed, JSON. */
  body: string;
}

export interface OutboxTable {
  id: Generated<number>;
  event_id: string;
  partner_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: number;
  lease_until: number | null;
  last_error: string | null;
  delivered_at: number | null;
}

export interface WebhookEndpointsTable {
  partner_id: string;
  url: string;
  secret_enc: string;
  active: number;
  created_at: number;
  updated_at: number;
}

export interface IdempotencyTable {
  key_id: string;
  idem_key: string;
  fingerprint: string;
  state: 'executing' | 'done';
  status_code: number | null;
  body: string | null;
  headers: string | null;
  created_at: number;
  expires_at: number;
}

export interface StatementsTable {
  statement_id: string;
  partner_id: string;
  /** Business time of the partner, epoch ms; the period is [period_start, period_end). */
  period_start: number;
  period_end: number;
  gross_sold_cents: number;
  commission_retained_cents: number;
  amount_owed_cents: number;
  service_collected_gross_cents: number;
  commission_payable_cents: number;
  currency: string;
  order_count: number;
  created_at: number;
}

/** The orders a statement settled, with the commission fixed at settlement time. */
export interface StatementOrdersTable {
  public_id: string;
  statement_id: string;
  partner_id: string;
  payment_model: 'partner_collected' | 'service_collected';
  sale_price_cents: number;
  commission_cents: number;
  settled_at: number;
}

export interface PayoutsTable {
  payout_id: string;
  partner_id: string;
  kind: 'service_collected_commission' | 'brokerage' | 'referral_commission';
  amount_cents: number;
  currency: string;
  /** Business time of the partner when recorded. */
  paid_at: number;
  created_at: number;
}

/** A partner without a row has the x-commission-defaults rates. */
export interface PartnerCommissionRatesTable {
  partner_id: string;
  partner_collected_bps: number;
  service_collected_bps: number;
  referral_bps: number;
  brokerage_bps: number;
  updated_at: number;
}

export interface Database {
  partners: PartnersTable;
  credentials: CredentialsTable;
  nonces: NoncesTable;
  nonce_log: NonceLogTable;
  rate_counters: RateCountersTable;
  inventory: InventoryTable;
  quotes: QuotesTable;
  orders: OrdersTable;
  order_timeline: OrderTimelineTable;
  events: EventsTable;
  outbox: OutboxTable;
  webhook_endpoints: WebhookEndpointsTable;
  idempotency: IdempotencyTable;
  statements: StatementsTable;
  statement_orders: StatementOrdersTable;
  payouts: PayoutsTable;
  partner_commission_rates: PartnerCommissionRatesTable;
}
