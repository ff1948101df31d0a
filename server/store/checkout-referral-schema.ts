// The tables of migration 003 (hosted checkout and referral). Declared by merging into the one
// Database interface, so this feature's tables live beside its migration and repositories.
import type { Generated } from 'kysely';
import type { Environment } from './schema.ts';

export interface CheckoutSessionsTable {
  session_id: string;
  partner_id: string;
  environment: Environment;
  domain: string;
  price_cents: number;
  currency: string;
  buyer_email: string;
  buyer_country: string | null;
  buyer_account: string | null;
  return_url: string;
  cancel_url: string;
  quote_id: string | null;
  /** The referral click the buyer arrived with, once the hosted page has seen one. */
  click_id: string | null;
  link_id: string | null;
  /** Business time the session was tied to the click (the funnel's "checkout started"). */
  referred_at: number | null;
  order_id: string | null;
  paid_at: number | null;
  /** Business time of the partner. */
  created_at: number;
  expires_at: number;
}

export interface ReferralLinksTable {
  link_id: string;
  code: string;
  partner_id: string;
  environment: Environment;
  type: 'generic' | 'domain' | 'product';
  domain: string | null;
  product: string | null;
  created_at: number;
}

export interface ReferralClicksTable {
  click_id: string;
  link_id: string;
  partner_id: string;
  /** Business time of the link's partner. */
  created_at: number;
}

/** A sale attributed to a link: the commission fixed when the sale was paid. */
export interface ReferralSalesTable {
  public_id: string;
  partner_id: string;
  link_id: string;
  click_id: string;
  domain: string;
  buyer_email: string;
  buyer_country: string | null;
  amount_cents: number;
  commission_cents: number;
  currency: string;
  sold_at: number;
}

export interface CommissionLedgerTable {
  /** Ledger order; the running balance is summed along it. */
  seq: Generated<number>;
  entry_id: string;
  partner_id: string;
  public_id: string;
  status: 'accrued' | 'pending' | 'paid_out' | 'reversed';
  amount_cents: number;
  currency: string;
  payout_id: string | null;
  created_at: number;
}

declare module './schema.ts' {
  interface Database {
    checkout_sessions: CheckoutSessionsTable;
    referral_links: ReferralLinksTable;
    referral_clicks: ReferralClicksTable;
    referral_sales: ReferralSalesTable;
    commission_ledger: CommissionLedgerTable;
  }
}
