// Brokerage cases (the admin contract's x-transitions): the case state machine the operator drives, and who may open a
// case for a domain. Pure: no clock, no storage.

export const BROKERAGE_STATUSES = [
  'open',
  'contacting_owner',
  'negotiating',
  'deal_closed',
  'no_deal',
  'cancelled',
] as const;
export type BrokerageStatus = (typeof BROKERAGE_STATUSES)[number];

export const BROKERAGE_TIERS = ['managed', 'self_serve'] as const;
export type BrokerageTier = (typeof BROKERAGE_TIERS)[number];

export const FINAL_STATUSES: readonly BrokerageStatus[] = ['deal_closed', 'no_deal', 'cancelled'];
/** The statuses in which a case holds its domain: another case for it is refused (`open_case`). */
export const OPEN_STATUSES: readonly BrokerageStatus[] = ['open', 'contacting_owner', 'negotiating'];

export const BROKERAGE_ACTIONS = ['contact-owner', 'negotiate', 'close-deal', 'no-deal', 'cancel'] as const;
export type BrokerageAction = (typeof BROKERAGE_ACTIONS)[number];

export type BrokerageEventType = 'brokerage.case_opened' | 'brokerage.case_updated' | 'brokerage.case_completed';

export interface BrokerageTransition {
  from: readonly BrokerageStatus[];
  to: BrokerageStatus;
  event: BrokerageEventType;
  /** Delivered by webhook, or written to the history only. */
  webhook: boolean;
  /** Body members the action cannot do without. */
  requires: readonly 'final_price_cents'[];
}

/** The admin contract's `x-transitions`, member for member (a test holds them equal). */
export const BROKERAGE_TRANSITIONS: Readonly<Record<BrokerageAction, BrokerageTransition>> = {
  'contact-owner': {
    from: ['open'],
    to: 'contacting_owner',
    event: 'brokerage.case_updated',
    webhook: false,
    requires: [],
  },
  negotiate: {
    from: ['contacting_owner'],
    to: 'negotiating',
    event: 'brokerage.case_updated',
    webhook: false,
    requires: [],
  },
  'close-deal': {
    from: ['negotiating'],
    to: 'deal_closed',
    event: 'brokerage.case_completed',
    webhook: true,
    requires: ['final_price_cents'],
  },
  'no-deal': {
    from: ['open', 'contacting_owner', 'negotiating'],
    to: 'no_deal',
    event: 'brokerage.case_updated',
    webhook: false,
    requires: [],
  },
  cancel: {
    from: ['open', 'contacting_owner', 'negotiating'],
    to: 'cancelled',
    event: 'brokerage.case_updated',
    webhook: false,
    requires: [],
  },
};

export const OPENED_EVENT: BrokerageEventType = 'brokerage.case_opened';

export const isBrokerageAction = (value: string): value is BrokerageAction =>
  (BROKERAGE_ACTIONS as readonly string[]).includes(value);

/** What a request body must not get wrong, before the case's state is even looked at (400). */
export function bodyProblem(
  action: BrokerageAction,
  finalPriceCents: number | undefined,
): { path: string; message: string } | undefined {
  const needs = BROKERAGE_TRANSITIONS[action].requires.includes('final_price_cents');
  if (needs && finalPriceCents === undefined)
    return { path: '/body/final_price_cents', message: `${action} requires final_price_cents` };
  if (!needs && finalPriceCents !== undefined)
    return {
      path: '/body/final_price_cents',
      message: `final_price_cents is only accepted by close-deal, not ${action}`,
    };
  return undefined;
}

export type MoveResult =
  | { ok: true; status: BrokerageStatus; finalPriceCents: number | null; event: BrokerageEventType; webhook: boolean }
  | { ok: false; message: string };

/**
 * The case after `action`, or why the state machine forbids it. Repeating a move is forbidden
 * like any other move from the wrong status, so a retried operator call never writes twice.
 */
export function moveCase(
  current: { case_id: string; status: BrokerageStatus; final_price_cents: number | null },
  action: BrokerageAction,
  finalPriceCents?: number,
): MoveResult {
  const t = BROKERAGE_TRANSITIONS[action];
  if (!t.from.includes(current.status)) {
    const allowed = t.from.length === 1 ? t.from[0] : `${t.from.slice(0, -1).join(', ')} or ${t.from.at(-1)}`;
    return {
      ok: false,
      message: `Brokerage case ${current.case_id} is ${current.status}; ${action} is allowed only from ${allowed}`,
    };
  }
  return {
    ok: true,
    status: t.to,
    finalPriceCents: t.to === 'deal_closed' ? (finalPriceCents ?? null) : current.final_price_cents,
    event: t.event,
    webhook: t.webhook,
  };
}

/**
 * Sandbox (and this reference server's live) stand-in for "runs an active live site": the service
 * has no crawler, so a fixed, documented list plays the part. `dailygrind.com` is the contract's
 * own `active_site` example; the `example.*` names are reserved (RFC 2606) and always "in use".
 */
export const ACTIVE_SITE_DOMAINS: ReadonlySet<string> = new Set([
  'dailygrind.com',
  'example.com',
  'example.net',
  'example.org',
  'activesite.com',
  'liveshop.net',
]);

export type IneligibleReason = 'active_site' | 'listed' | 'open_case';

export interface Eligibility {
  domain: string;
  eligible: boolean;
  reason: IneligibleReason | null;
}

/**
 * Brokerage acquires domains that are not listed (createBrokerageCase): a domain listed for sale
 * is bought with a quote and an order instead. The lasting reasons outrank an open case, which
 * ends: an active site first, then a listing.
 */
export function eligibility(domain: string, hasOpenCase: boolean, listed = false): Eligibility {
  if (ACTIVE_SITE_DOMAINS.has(domain)) return { domain, eligible: false, reason: 'active_site' };
  if (listed) return { domain, eligible: false, reason: 'listed' };
  if (hasOpenCase) return { domain, eligible: false, reason: 'open_case' };
  return { domain, eligible: true, reason: null };
}

export const ineligibleMessage = (e: Eligibility) =>
  `Domain "${e.domain}" is not eligible for brokerage: ${e.reason ?? 'unknown'}`;
