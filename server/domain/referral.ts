/**
 * Referral rules: link destinations, the 30-day attribution window, the commission ledger's
 * balance arithmetic and which status may follow which, and the masking of referred buyers.
 */

/** x-attribution-window-days of POST /links. */
export const ATTRIBUTION_WINDOW_DAYS = 30;
export const ATTRIBUTION_WINDOW_MS = ATTRIBUTION_WINDOW_DAYS * 24 * 60 * 60 * 1000;
/** The attribution cookie /r/{code} sets; its value is the click id. */
export const REFERRAL_COOKIE = 'ds_ref';

/** Product pages a product link may point at (ProductSlug). */
export const PRODUCTS = [
  'hosted-checkout',
  'brokerage',
  'referral',
  'partner-api',
  'domain-search',
  'marketplace',
] as const;

export type LinkType = 'generic' | 'domain' | 'product';

export interface LinkTarget {
  readonly type: LinkType;
  readonly domain: string | null;
  readonly product: string | null;
}

/**
 * Where a tracked link sends the browser, on the service's public site: generic → the home
 * page, domain → `/domains/<name>`, product → `/products/<slug>`. Query parameters the link was
 * opened with (utm_* and the like) are passed on unchanged. `publicBaseUrl` is deps.baseUrl(req)
 * (http/trusted-host.ts), which has no trailing slash.
 */
export function linkDestination(publicBaseUrl: string, link: LinkTarget, rawQuery: string): string {
  const path =
    link.type === 'domain' && link.domain
      ? `/domains/${encodeURIComponent(link.domain)}`
      : link.type === 'product' && link.product
        ? `/products/${encodeURIComponent(link.product)}`
        : '/';
  return `${publicBaseUrl}${path}${rawQuery ? `?${rawQuery}` : ''}`;
}

/** A sale is attributed to a click at most 30 days (inclusive) before it, never to a later click. */
export function isWithinAttributionWindow(clickAt: number, saleAt: number): boolean {
  return saleAt >= clickAt && saleAt - clickAt <= ATTRIBUTION_WINDOW_MS;
}

export type CommissionStatus = 'accrued' | 'pending' | 'paid_out' | 'reversed';

/** x-balance-effect of CommissionStatus: +1 credit, 0 none, -1 debit. */
export const BALANCE_EFFECT: Readonly<Record<CommissionStatus, -1 | 0 | 1>> = {
  accrued: 1,
  pending: 0,
  paid_out: -1,
  reversed: -1,
};

/** The running balance after each entry, in ledger order. */
export function runningBalances(
  entries: ReadonlyArray<{ status: CommissionStatus; amountCents: number }>,
  opening = 0,
): number[] {
  let balance = opening;
  return entries.map((e) => (balance += BALANCE_EFFECT[e.status] * e.amountCents));
}

/**
 * Which status a commission may move to from its latest one. A refund only happens before the
 * transfer completes, so before settlement; but a pending commission is reversible too, should an
 * operator refund after settlement ever be allowed. A paid-out or reversed commission is final.
 */
export function canMoveCommission(latest: CommissionStatus, next: CommissionStatus): boolean {
  switch (next) {
    case 'accrued':
      return false;
    case 'pending':
      return latest === 'accrued';
    case 'paid_out':
      return latest === 'pending';
    case 'reversed':
      return latest === 'accrued' || latest === 'pending';
  }
}

/** `jane.doe@example.org` → `j•••@example.org`: referred buyers are the service's customers. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '•••';
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}

/**
 * The analytics window: 30 days before now without bounds; with one bound, the other 30 days
 * away from it; `to` never later than now.
 */
export function analyticsWindow(
  from: number | undefined,
  to: number | undefined,
  now: number,
): { from: number; to: number } {
  const span = ATTRIBUTION_WINDOW_MS;
  let end = to ?? (from !== undefined ? from + span : now);
  if (end > now) end = now;
  const start = from ?? end - span;
  return { from: start, to: end };
}
