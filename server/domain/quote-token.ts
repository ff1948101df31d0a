import type { Environment } from './environment.ts';
import { rfc3339 } from './rfc3339.ts';
import { open, seal } from './signed-token.ts';

/** x-quote-validity-seconds of POST /quotes. */
export const QUOTE_VALIDITY_SECONDS = 600;
export const QUOTE_ID_PREFIX = 'qt_';
const PURPOSE = 'quote.v1';

export interface QuotePayload {
  readonly domain: string;
  readonly priceCents: number;
  readonly currency: string;
  readonly partnerId: string;
  readonly environment: Environment;
  /** ms since the epoch, in the partner's business time (its test clock in sandbox). */
  readonly issuedAt: number;
  readonly expiresAt: number;
}

export interface IssueQuoteInput {
  readonly key: Uint8Array;
  readonly domain: string;
  readonly priceCents: number;
  readonly currency: string;
  readonly partnerId: string;
  readonly environment: Environment;
  readonly issuedAt: number;
  readonly validitySeconds?: number;
  /**
   * The end of the partner's live reservation of the domain, which a new quote keeps instead of
   * `issuedAt` + validity (x-quote-reservation: a quote never moves a reservation's end).
   */
  readonly expiresAt?: number;
}

// Short member names: the whole payload travels in the id, which the spec caps at 1024 characters.
interface Wire {
  v: 1;
  d: string;
  p: number;
  c: string;
  pt: string;
  e: Environment;
  iat: number;
  exp: number;
}

export function issueQuote(input: IssueQuoteInput): { quoteId: string; expiresAt: number } {
  const validity = input.validitySeconds ?? QUOTE_VALIDITY_SECONDS;
  if (!Number.isSafeInteger(input.priceCents) || input.priceCents < 0)
    throw new RangeError('priceCents must be a non-negative integer');
  if (!Number.isSafeInteger(input.issuedAt)) throw new RangeError('issuedAt must be an integer number of ms');
  if (!(validity > 0) || !Number.isFinite(validity)) throw new RangeError('validitySeconds must be positive');
  const expiresAt = input.expiresAt ?? input.issuedAt + Math.round(validity * 1000);
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= input.issuedAt)
    throw new RangeError('expiresAt must be an integer number of ms after issuedAt');
  const wire: Wire = {
    v: 1,
    d: input.domain,
    p: input.priceCents,
    c: input.currency,
    pt: input.partnerId,
    e: input.environment,
    iat: input.issuedAt,
    exp: expiresAt,
  };
  return { quoteId: seal(input.key, PURPOSE, QUOTE_ID_PREFIX, JSON.stringify(wire)), expiresAt };
}

export type QuoteRejection = 'malformed' | 'tampered' | 'foreign' | 'expired';

export type ReadQuoteResult =
  | { ok: true; payload: QuotePayload }
  | { ok: false; reason: Exclude<QuoteRejection, 'expired'> }
  | { ok: false; reason: 'expired'; payload: QuotePayload };

function fromWire(value: unknown): QuotePayload | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const w = value as Partial<Record<keyof Wire, unknown>>;
  if (w.v !== 1 || typeof w.d !== 'string' || typeof w.c !== 'string' || typeof w.pt !== 'string') return undefined;
  if (w.e !== 'sandbox' && w.e !== 'live') return undefined;
  if (!Number.isSafeInteger(w.p) || !Number.isSafeInteger(w.iat) || !Number.isSafeInteger(w.exp)) return undefined;
  return {
    domain: w.d,
    priceCents: w.p as number,
    currency: w.c,
    partnerId: w.pt,
    environment: w.e,
    issuedAt: w.iat as number,
    expiresAt: w.exp as number,
  };
}

/**
 * Checks in the order that leaks nothing: the signature first (so a forger learns nothing about
 * expiry or ownership), then the owner, then the expiry. A quote ends at `expiresAt`, exclusive.
 * `now` is the partner's business time in ms.
 */
export function readQuote(
  key: Uint8Array,
  quoteId: string,
  context: { partnerId: string; environment: Environment; now: number },
): ReadQuoteResult {
  const opened = open(key, PURPOSE, QUOTE_ID_PREFIX, quoteId);
  if (!opened.ok) return opened;
  const payload = fromWire(opened.payload);
  if (payload === undefined) return { ok: false, reason: 'malformed' };
  if (payload.partnerId !== context.partnerId || payload.environment !== context.environment) {
    return { ok: false, reason: 'foreign' };
  }
  if (context.now >= payload.expiresAt) return { ok: false, reason: 'expired', payload };
  return { ok: true, payload };
}

/** The API error of a rejected quote id: expiry is 422 `quote_expired`, anything else 400 `validation_error`. */
export function quoteError(
  result: Extract<ReadQuoteResult, { ok: false }>,
):
  | { status: 400; code: 'validation_error'; message: string; details: Array<{ path: string; message: string }> }
  | { status: 422; code: 'quote_expired'; message: string } {
  if (result.reason === 'expired') {
    return { status: 422, code: 'quote_expired', message: `Quote expired at ${rfc3339(result.payload.expiresAt)}` };
  }
  // One message for every other reason: telling "foreign" from "tampered" would confirm to a
  // caller that a stolen id is genuine.
  const message = 'quote_id is not a valid quote of this credential';
  return { status: 400, code: 'validation_error', message, details: [{ path: '/body/quote_id', message }] };
}
