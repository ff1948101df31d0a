// Hosted checkout sessions (scope `embed`): the same price checks as POST /orders, then a session
// the buyer pays on the hosted page (server/public/checkout.ts) within 7 days of business time.
import type { RequestHandler } from 'express';
import type { components } from '../../generated/partner.d.ts';
import { buyerUrlProblem } from '../domain/buyer-url.ts';
import { issueCheckoutToken, SESSION_VALIDITY_SECONDS } from '../domain/checkout.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { ApiError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import { callerOf, type PartnerDeps } from './context.ts';
import { requestQuote } from './request-quote.ts';

type Schemas = components['schemas'];

/**
 * The key of checkout tokens. The quote key serves both: signed-token.ts binds every MAC to a
 * purpose label, so a quote id can never pass as a checkout token or the reverse.
 */
export const checkoutKey = (deps: Pick<PartnerDeps, 'keys'>) => deps.keys.quotes;

export function createCheckoutSession(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const request = req.body as Schemas['CheckoutSessionRequest'];
    const environment = caller.credential.environment;
    // The schema's pattern admits loopback http for everyone; only sandbox may use it (x-url-rule).
    const urlProblems = (['return_url', 'cancel_url'] as const).flatMap((member) => {
      const problem = buyerUrlProblem(request[member], environment);
      return problem ? [{ path: `/body/${member}`, message: problem }] : [];
    });
    if (urlProblems.length > 0) {
      throw new ApiError(
        'validation_error',
        `Request is invalid: ${urlProblems.map((d) => `${d.path} ${d.message}`).join('; ')}`,
        urlProblems,
      );
    }
    const { domain } = request;
    // Before the domain's state: a quote that is not the caller's answers alike whatever that is.
    const quote = requestQuote(deps, caller, request);
    const listing = await deps.store.inventory.find(environment, domain);
    if (!listing) throw new ApiError('not_found', `Domain "${domain}" is not listed`);
    if (listing.status !== 'listed' || (await deps.store.orders.liveOrderFor(environment, domain)))
      throw new ApiError('not_found', `Domain "${domain}" is already sold`);
    const held = await deps.store.orders.reservationOn(listing, caller.partner.id, caller.now);
    if (held)
      throw new ApiError(
        'domain_reserved',
        `Domain "${domain}" is reserved by another partner's quote until ${rfc3339(held.endsAt)}`,
      );

    if (quote.kind === 'expired') throw new ApiError(quote.code, quote.message);
    const price = quote.kind === 'valid' ? quote.priceCents : listing.price_cents;
    if (request.expected_price !== price || request.currency !== listing.currency) {
      const what = request.quote_id ? 'quoted' : 'current';
      throw new ApiError(
        'price_mismatch',
        `expected_price ${request.expected_price} ${request.currency} differs from the ${what} price ${price} ${listing.currency} of "${domain}"`,
      );
    }

    const createdAt = caller.businessNow;
    const expiresAt = createdAt + SESSION_VALIDITY_SECONDS * 1000;
    const sessionId = newId('cs', 20);
    await deps.store.checkout.insertSession({
      session_id: sessionId,
      partner_id: caller.partner.id,
      environment,
      domain,
      price_cents: price,
      currency: listing.currency,
      buyer_email: request.buyer.email,
      buyer_country: request.buyer.country ?? null,
      buyer_account: request.buyer.account ?? null,
      return_url: request.return_url,
      cancel_url: request.cancel_url,
      quote_id: request.quote_id ?? null,
      click_id: null,
      link_id: null,
      referred_at: null,
      order_id: null,
      paid_at: null,
      created_at: createdAt,
      expires_at: expiresAt,
    });
    const pt = issueCheckoutToken(checkoutKey(deps), { sessionId, partnerId: caller.partner.id, expiresAt });
    const body: Schemas['CheckoutSession'] = {
      session_id: sessionId,
      checkout_url: `${deps.baseUrl(req)}/checkout?pt=${pt}`,
      domain,
      price_cents: price,
      currency: listing.currency,
      quote_id: request.quote_id ?? null,
      expires_at: rfc3339(expiresAt),
      created_at: rfc3339(createdAt),
    };
    res.status(201).json(body);
  };
}
