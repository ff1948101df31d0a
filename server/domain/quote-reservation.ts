// How long a partner's quotes reserve a domain (`x-quote-reservation` of POST /quotes): at most
// 10 minutes from the quote that started the reservation, never moved forward by a later quote;
// and once a reservation has ended without an order of that partner, 10 minutes in which the
// same partner cannot reserve the domain again (other partners can). Without the cap and the
// cool-down a partner could re-quote every few minutes and keep a domain from every competitor
// indefinitely. All times are the partner's business time (its test clock in sandbox), ms.
import { QUOTE_VALIDITY_SECONDS } from './quote-token.ts';

/** x-quote-reservation `max-seconds`: the longest one reservation lasts. */
export const RESERVATION_MAX_SECONDS = QUOTE_VALIDITY_SECONDS;
/** x-quote-reservation `cooldown-seconds`. */
export const RESERVATION_COOLDOWN_SECONDS = 600;

/** The caller's latest reservation of the domain, as the store finds it. */
export interface OwnReservation {
  /** When it ends (exclusive): the latest `expires_at` of the caller's quotes of the domain. */
  endsAt: number;
  /** Whether the caller placed an order for the domain since the reservation began. */
  ordered: boolean;
}

export type QuoteReservation =
  /** No reservation of the caller's is live or cooling down: a new one, of the full length. */
  | { kind: 'new'; expiresAt: number }
  /** The caller's reservation is live: the new quote keeps its end. */
  | { kind: 'live'; expiresAt: number }
  /** The caller's reservation ended without an order: no quote before `quoteAgainAt`. */
  | { kind: 'cooldown'; endedAt: number; quoteAgainAt: number; retryAfterSeconds: number };

/** When a reservation that ends at `endsAt` began: its first quote. */
export const reservationStart = (endsAt: number) => endsAt - RESERVATION_MAX_SECONDS * 1000;

export function decideQuoteReservation(own: OwnReservation | undefined, now: number): QuoteReservation {
  const fresh = { kind: 'new', expiresAt: now + RESERVATION_MAX_SECONDS * 1000 } as const;
  if (own === undefined) return fresh;
  if (now < own.endsAt) return { kind: 'live', expiresAt: own.endsAt };
  const quoteAgainAt = own.endsAt + RESERVATION_COOLDOWN_SECONDS * 1000;
  if (own.ordered || now >= quoteAgainAt) return fresh;
  return {
    kind: 'cooldown',
    endedAt: own.endsAt,
    quoteAgainAt,
    retryAfterSeconds: Math.max(1, Math.ceil((quoteAgainAt - now) / 1000)),
  };
}

/** A listing's latest reservation as its row carries it: the partner and the end, in that partner's business time. */
export interface ListingReservation {
  partnerId: string;
  endsAt: number;
}

/**
 * Whether a listing's reservation can hold against `partnerId` at real time `now`, as far as the
 * row alone tells: not when it names no partner or this one, nor when its end has passed in real
 * time (a test clock never moves back, so the end has then passed on its partner's clock too).
 * When true, the store decides with that partner's clock (store/listing-reservation.ts).
 */
export function mayBeReservedAgainst(reservation: ListingReservation | null, partnerId: string, now: number): boolean {
  return reservation !== null && reservation.partnerId !== partnerId && reservation.endsAt > now;
}
