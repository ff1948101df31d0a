// A test-only fault switch: each fault makes the reference server break one rule of the
// contract, so the conformance suite's own tests can prove that the right family notices.
// Faults are injected through createApp's dependencies only (never from the environment), so a
// deployment cannot switch them on by configuration.
import { canonicalString, signatureHex } from '../client/protocol/index.ts';
import type { components } from '../generated/partner.d.ts';

type ErrorCode = components['schemas']['ErrorCode'];

export const FAULTS = [
  'accept-replays',
  'ignore-skew',
  'lenient-canonicalisation',
  'ignore-idempotency',
  'wrong-error-codes',
  'duplicate-page-items',
  'drop-page-items',
  'missing-retry-after',
  'remove-response-field',
  'bad-webhook-signature',
  // Authorization between principals: GET /orders/{public_id} serves another partner's order.
  'foreign-orders-visible',
  // Order lifecycle: an operator may cancel an order already delivered (TRANSFER_COMPLETED).
  'cancel-after-delivery',
  // Skew edge: a timestamp 301 s away is still accepted (the window compared with >= 302).
  'skew-window-301',
  // Nonce memory: a nonce whose timestamp is 299 s old or more is forgotten (a store pruned early).
  'short-nonce-memory',
  // Body hash: BODY_SHA256_HEX over the body parsed and re-serialised (JSON.stringify), not the raw bytes as sent.
  'body-hash-reserialised',
  // Public listings: offset pages answer next_cursor null (only pages reached by cursor carry one).
  'offset-pages-null-cursor',
  // Transaction totals: refunded and cancelled rows add their sale price to gmv_cents.
  'void-sales-in-gmv',
  // PKCE: /oauth/authorize takes code_challenge_method plain (or none, RFC 7636's default of plain), and
  // /api/oauth/token accepts a code_verifier equal to the code_challenge (the plain comparison).
  'pkce-plain-accepted',
  // Security headers: partner answers lose X-Content-Type-Options (the public ones keep it).
  'partner-no-nosniff',
  // CORS: error answers (4xx, 5xx) of any-origin paths lose Access-Control-Allow-Origin.
  'cors-missing-on-errors',
  // Body limits: a partner body over max-bytes is not refused with 413 (the truncated body then fails the signature).
  'partner-body-limit-ignored',
  // x-head: a partner HEAD is turned into a GET at the edge, so its signature is checked with METHOD GET.
  'head-signed-as-get',
  // x-head: HEAD answers say Content-Length: 0 (the length of the body not sent) instead of the GET's.
  'head-content-length-zero',
  // x-single-headers: a repeated Host, credential or signing header is not refused (Node joins or drops the copies).
  'repeated-headers-joined',
  // x-request-target: the target is left to Express's router, so a malformed one gets its HTML 404.
  'target-parsed-by-router',
  // x-signing request-target: a partner target in absolute form is accepted, signed over its path.
  'absolute-target-path-signed',
  // x-unknown-query-parameters: an undocumented query parameter is ignored instead of refused.
  'unknown-query-ignored',
  // x-failure-classes: last_error carries the failure's detail (addresses, library text), not its class.
  'delivery-error-detail',
  // x-form-action: the hosted pages' form-action keeps 'self' only, without the return, cancel or redirect origins.
  'form-action-self-only',
  // x-attribution-window-days: a sale is attributed to a click however old.
  'attribution-window-ignored',
  // x-balance-effect: a paid_out row leaves the ledger's running balance unchanged (payouts not debited).
  'payouts-not-debited',
  // Brokerage eligibility: GET /brokerage/eligibility ignores an open case on the domain.
  'eligibility-ignores-open-cases',
  // x-token-lifetimes: authorization codes live 10 minutes instead of 60 s.
  'long-code-lifetime',
  // POST /quotes: partners quoting one domain at the same instant are not taken in turn (each
  // finds it free before any has reserved it).
  'quotes-race',
  // POST /quotes: the reservation is not recorded on the listing row, and the quote's transaction
  // ends 50 ms late, so an order by another partner made meanwhile takes the domain as well.
  'quote-order-race',
  // The hosted checkout's payment ignores another partner's reservation made after the session
  // was opened: it sells the reserved domain.
  'checkout-pay-ignores-reservation',
] as const;

export type Fault = (typeof FAULTS)[number];
export type Faults = ReadonlySet<Fault>;
export const NO_FAULTS: Faults = new Set();

/** lenient-canonicalisation: the signature over the query exactly as sent, not canonicalised. */
export function signatureOverRawQuery(request: {
  secret: string;
  method: string;
  path: string;
  query: string;
  timestamp: string;
  nonce: string;
  body: Uint8Array;
}): string {
  const lines = canonicalString({ ...request, query: '' }).split('\n');
  lines[2] = request.query;
  return `v1=${signatureHex(request.secret, lines.join('\n'))}`;
}

/** wrong-error-codes: plausible but wrong codes, the kind of slip a refactor makes. */
export const WRONG_CODE: Readonly<Partial<Record<ErrorCode, ErrorCode>>> = {
  replay_detected: 'invalid_signature',
  domain_reserved: 'conflict',
  price_mismatch: 'validation_error',
  missing_idempotency_key: 'validation_error',
  invalid_cursor: 'validation_error',
};

/** remove-response-field: `currency` vanishes from answers (top level and list items). */
export function withoutCurrency(body: unknown): unknown {
  const strip = (value: unknown): unknown => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
    const { currency: _dropped, ...rest } = value as Record<string, unknown>;
    for (const key of ['data', 'results']) {
      if (Array.isArray(rest[key])) rest[key] = (rest[key] as unknown[]).map(strip);
    }
    return rest;
  };
  return strip(body);
}

/** body-hash-reserialised: the bytes a server that re-serialises the parsed JSON body would hash. */
export function reserialisedBody(raw: Uint8Array): Uint8Array {
  if (raw.length === 0) return raw;
  try {
    return Buffer.from(JSON.stringify(JSON.parse(Buffer.from(raw).toString('utf8'))), 'utf8');
  } catch {
    return raw;
  }
}
