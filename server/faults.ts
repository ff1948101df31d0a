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
