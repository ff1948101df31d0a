// The `quote_id` of POST /orders and POST /checkout-session, checked as part of the request,
// before anything about the domain's state is read (listing, sale, another partner's
// reservation). A tampered, malformed or foreign id, or one quoting another domain, is one 400
// `validation_error` whatever the domain's state: answering another partner's genuine quote with
// 409 `domain_reserved` (and its end) would confirm that a stolen id is real and tell when the
// competitor's reservation ends. An expired quote of the caller is the operation's own refusal
// (422 `quote_expired`), decided where the operation decides its refusals.
import type { components } from '../../generated/partner.d.ts';
import { quoteError, readQuote } from '../domain/quote-token.ts';
import { ApiError } from '../http/errors.ts';
import type { Caller, PartnerDeps } from './context.ts';

type Schemas = components['schemas'];

export type RequestQuote =
  /** No quote_id: the current listing price applies. */
  | { kind: 'none' }
  | { kind: 'valid'; priceCents: number }
  | { kind: 'expired'; code: Extract<Schemas['ErrorCode'], 'quote_expired'>; message: string };

/** Throws the 400 of an id that is not a valid quote of this credential for this domain. */
export function requestQuote(
  deps: Pick<PartnerDeps, 'keys'>,
  caller: Caller,
  request: { domain: string; quote_id?: string | null | undefined },
): RequestQuote {
  if (request.quote_id === undefined || request.quote_id === null) return { kind: 'none' };
  const quote = readQuote(deps.keys.quotes, request.quote_id, {
    partnerId: caller.partner.id,
    environment: caller.credential.environment,
    now: caller.businessNow,
  });
  if (!quote.ok) {
    const err = quoteError(quote);
    if (err.status === 400) throw new ApiError('validation_error', err.message, err.details);
    return { kind: 'expired', code: err.code, message: err.message };
  }
  if (quote.payload.domain !== request.domain) {
    throw new ApiError(
      'validation_error',
      `quote_id was issued for "${quote.payload.domain}", not "${request.domain}"`,
      [{ path: '/body/quote_id', message: 'quotes another domain' }],
    );
  }
  return { kind: 'valid', priceCents: quote.payload.priceCents };
}
