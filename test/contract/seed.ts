// What the seed documents promise, transcribed by hand from ../shared/seeds/ and
// ../shared/DECISIONS.md. The contract tests check the bundled documents against this,
// never against themselves.

const V1 = '/api/partner/v1';

/** Partner operations: method, path, scope (seed endpoint tables; DECISIONS §1 for GET /orders). */
export const PARTNER_OPERATIONS: ReadonlyArray<readonly [method: string, path: string, scope: string]> = [
  ['get', `${V1}/domains/search`, 'search'],
  ['get', `${V1}/domains/{name}`, 'search'],
  ['get', `${V1}/availability`, 'search'],
  ['get', `${V1}/pricing`, 'search'],
  ['post', `${V1}/quotes`, 'buy'],
  ['post', `${V1}/orders`, 'buy'],
  ['get', `${V1}/orders`, 'buy'],
  ['get', `${V1}/orders/{public_id}`, 'buy'],
  ['post', `${V1}/checkout-session`, 'embed'],
  ['get', `${V1}/settlements`, 'buy'],
  ['get', `${V1}/transactions`, 'report'],
  ['get', `${V1}/payouts`, 'report'],
  ['get', `${V1}/brokerage`, 'report'],
  ['post', `${V1}/refunds`, 'buy'],
  ['get', `${V1}/brokerage/eligibility`, 'broker'],
  ['post', `${V1}/brokerage`, 'broker'],
  ['get', `${V1}/brokerage/{case_id}`, 'broker'],
  ['post', `${V1}/links`, 'refer'],
  ['get', `${V1}/links`, 'refer'],
  ['get', `${V1}/me/clicks`, 'report'],
  ['get', `${V1}/me/sales`, 'report'],
  ['get', `${V1}/me/commissions`, 'report'],
  ['get', `${V1}/me/payouts`, 'report'],
  ['get', `${V1}/analytics`, 'report'],
  ['put', '/api/partner/webhooks', 'webhook'],
  ['get', `${V1}/events`, 'webhook'],
];

/**
 * Operations the contract adds to the seed's. GET /api/partner/webhooks is where a partner reads
 * why deliveries fail, a refused destination included (DECISIONS §5 and §8: a refused delivery is
 * a failed attempt with a reason the partner can see). DELETE /api/partner/webhooks stops
 * deliveries (a retired integration, or a test run leaving no registration the service would
 * retry for a day; the spec's deactivateWebhook).
 */
export const PARTNER_ADDED_OPERATIONS: ReadonlyArray<readonly [method: string, path: string, scope: string]> = [
  ['get', '/api/partner/webhooks', 'webhook'],
  ['delete', '/api/partner/webhooks', 'webhook'],
];

/** Rate-limit class per partner operation (DECISIONS §2). */
export function expectedRateClass(method: string, path: string): string {
  if (path.startsWith(`${V1}/domains/`) || path === `${V1}/availability` || path === `${V1}/pricing`) return 'search';
  if (method !== 'get') return 'write';
  return 'reporting';
}

/** The seven delivered webhook kinds (seed, Events > Event kinds). */
export const WEBHOOK_KINDS = [
  'order.recorded',
  'order.manual_review_cleared',
  'order.transfer_started',
  'order.transfer_completed',
  'order.settled',
  'order.refunded',
  'brokerage.case_completed',
];

/** Error codes of the partner seed's two tables with their statuses (the second table's from DECISIONS §1). */
export const PARTNER_ERROR_CODES: Record<string, number> = {
  validation_error: 400,
  invalid_signature: 401,
  missing_credentials: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  price_mismatch: 422,
  quote_expired: 422,
  rate_limited: 429,
  internal_error: 500,
  invalid_timestamp: 401,
  replay_detected: 401,
  missing_signature_headers: 401,
  missing_idempotency_key: 400,
};

/** Error codes of the public seed's table, plus those DECISIONS adds (§3, §4). */
export const PUBLIC_ERROR_CODES: Record<string, number> = {
  invalid_token: 401,
  invalid_grant: 400,
  invalid_redirect_uri: 400,
  invalid_cursor: 400,
  rate_limited: 429,
};
export const DECISIONS_ERROR_CODES: Record<string, number> = {
  domain_reserved: 409,
  invalid_state: 409,
};

/** Public operations of the public seed's endpoint tables. */
export const PUBLIC_OPERATIONS: ReadonlyArray<readonly [method: string, path: string]> = [
  ['post', '/api/domain/search'],
  ['post', '/api/tools/whois'],
  ['get', '/api/pricing/tld'],
  ['get', '/api/tlds/{tld}/metadata'],
  ['get', '/api/market/listings'],
  ['post', '/api/batch'],
  ['get', '/api/batch'],
  ['post', '/api/domains/bulk/{op}'],
  ['get', '/.well-known/oauth-protected-resource'],
  ['get', '/.well-known/oauth-authorization-server'],
  // The seed's "also mirrored at /.well-known/openid-configuration" is not served: the public
  // document's getAuthorizationServerMetadata says why (RFC 8414 is the one discovery document).
  ['post', '/api/oauth/register'],
  ['get', '/oauth/authorize'],
  ['post', '/api/oauth/token'],
  ['post', '/mcp'],
  ['get', '/.well-known/mcp.json'],
  ['get', '/.well-known/mcp'],
  ['get', '/.well-known/mcp/server-card.json'],
  // DECISIONS §7
  ['get', '/openapi.json'],
  ['get', '/api/partner/v1/openapi.json'],
  ['get', '/api/v1'],
  ['get', '/.well-known/oauth-protected-resource/mcp'],
  ['get', '/mcp/server-card'],
  ['get', '/.well-known/ai-catalog.json'],
];

/** Operator operations of DECISIONS §3. */
export const ADMIN_OPERATIONS: ReadonlyArray<readonly [method: string, path: string]> = [
  ['post', '/api/admin/v1/credentials'],
  ['post', '/api/admin/v1/orders/{public_id}/{action}'],
  ['post', '/api/admin/v1/settlements/run'],
  ['post', '/api/admin/v1/brokerage/{case_id}/{action}'],
  ['post', '/api/admin/v1/payouts'],
  ['post', '/api/admin/v1/partners/{partner_id}/clock/advance'],
];
export const ADMIN_ORDER_ACTIONS = ['hold', 'clear-hold', 'start-transfer', 'confirm-delivery', 'cancel', 'refund'];
export const ADMIN_BROKERAGE_ACTIONS = ['contact-owner', 'negotiate', 'close-deal', 'no-deal', 'cancel'];
