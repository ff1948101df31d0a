/**
 * Hosted checkout rules: the signed `pt` token of a checkout URL, the session's life and the
 * sandbox test cards. The token names the session only; the session row holds the sale, so a
 * token can never carry a price or domain the store did not agree to.
 */
import { open, seal } from './signed-token.ts';
import { formatCents } from './money.ts';

/** x-session-validity-seconds of POST /checkout-session. */
export const SESSION_VALIDITY_SECONDS = 7 * 24 * 60 * 60;
export const CHECKOUT_TOKEN_PREFIX = 'pt_';
const PURPOSE = 'checkout.v1';

export interface CheckoutTokenPayload {
  readonly sessionId: string;
  readonly partnerId: string;
  /** Business time of the partner, ms; the session ends here (exclusive). */
  readonly expiresAt: number;
}

export function issueCheckoutToken(key: Uint8Array, payload: CheckoutTokenPayload): string {
  return seal(
    key,
    PURPOSE,
    CHECKOUT_TOKEN_PREFIX,
    JSON.stringify({ v: 1, s: payload.sessionId, p: payload.partnerId, exp: payload.expiresAt }),
  );
}

/** The session a token names, or why it names none (tampered and malformed look alike to the buyer). */
export function readCheckoutToken(
  key: Uint8Array,
  token: string,
): { ok: true; payload: CheckoutTokenPayload } | { ok: false } {
  const opened = open(key, PURPOSE, CHECKOUT_TOKEN_PREFIX, token);
  if (!opened.ok || typeof opened.payload !== 'object' || opened.payload === null) return { ok: false };
  const w = opened.payload as Record<string, unknown>;
  if (w.v !== 1 || typeof w.s !== 'string' || typeof w.p !== 'string' || !Number.isSafeInteger(w.exp))
    return { ok: false };
  return { ok: true, payload: { sessionId: w.s, partnerId: w.p, expiresAt: w.exp as number } };
}

export type SessionState = 'open' | 'expired' | 'paid';

/** A paid session stays paid (409) even after it would have expired: the buyer needs to know. */
export function sessionState(session: { expiresAt: number; paid: boolean }, businessNow: number): SessionState {
  if (session.paid) return 'paid';
  return businessNow >= session.expiresAt ? 'expired' : 'open';
}

export const SANDBOX_CARDS = { pays: '4242424242424242', declined: '4000000000000002' } as const;

export type CardOutcome = 'paid' | 'declined' | 'not_a_test_card';

/** Sandbox takes only the documented test cards; spaces as typed on a card are ignored. */
export function sandboxCardOutcome(cardNumber: string): CardOutcome {
  const digits = cardNumber.replace(/ /g, '');
  if (digits === SANDBOX_CARDS.pays) return 'paid';
  if (digits === SANDBOX_CARDS.declined) return 'declined';
  return 'not_a_test_card';
}

/** `return_url` with `public_id=<order>` added to its query, the rest left as the partner wrote it. */
export function returnUrlWithOrder(returnUrl: string, publicId: string): string {
  const url = new URL(returnUrl);
  url.searchParams.append('public_id', publicId);
  return url.toString();
}

/** Integer cents as the page shows them, e.g. `$2,500.00 USD`. */
export function formatPrice(cents: number, currency: string): string {
  const symbol = currency === 'USD' ? '$' : '';
  return `${symbol}${formatCents(cents)} ${currency}`;
}
