// Partner-collected sales (scope `buy`): quotes, idempotent orders, order reads, refunds.
import type { RequestHandler } from 'express';
import type { components } from '../../generated/partner.d.ts';
import { decideForExistingKey, fingerprint, isStoredOutcome } from '../domain/idempotency.ts';
import { initialState } from '../domain/order-state.ts';
import { decideQuoteReservation, reservationStart } from '../domain/quote-reservation.ts';
import { issueQuote, QUOTE_VALIDITY_SECONDS } from '../domain/quote-token.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { ApiError, errorBody } from '../http/errors.ts';
import { replayOrThrow, sendReplay } from '../http/idempotency-answer.ts';
import { newId } from '../ids.ts';
import type { OrderSight } from '../store/order-placement.ts';
import type { Repositories } from '../store/index.ts';
import type { OrderRow } from '../store/orders.ts';
import {
  callerFrom,
  callerOf,
  credentialOf,
  dateWindow,
  partnerCursorList,
  queryString,
  type Caller,
  type PartnerDeps,
} from './context.ts';
import { applyMove, orderEvents } from './order-moves.ts';
import { requestQuote } from './request-quote.ts';
import { toOrder, toOrderDetail } from './resources.ts';

type Schemas = components['schemas'];

export function createQuote(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const { domain } = req.body as Schemas['QuoteRequest'];
    const environment = caller.credential.environment;
    const listing = await deps.store.inventory.find(environment, domain);
    if (!listing || listing.status !== 'listed') throw new ApiError('not_found', `Domain "${domain}" is not listed`);
    // The decision and the reservation it writes, with `tx` holding the domain's quotes.
    const reserve = async (tx: Repositories) => {
      const held = await tx.orders.reservationByOther(environment, domain, caller.partner.id, caller.now);
      if (held) throw new ApiError('domain_reserved', `Domain "${domain}" is reserved by another partner's quote`);
      // x-quote-reservation: a live reservation keeps its end; one that ended without an order
      // cools down before the same partner may reserve the domain again.
      const own = await tx.orders.ownReservation(environment, domain, caller.partner.id, reservationStart);
      const reservation = decideQuoteReservation(own, caller.businessNow);
      if (reservation.kind === 'cooldown') {
        throw new ApiError(
          'quote_cooldown',
          `Your reservation of "${domain}" ended at ${rfc3339(reservation.endedAt)} without an order; you may quote it again from ${rfc3339(reservation.quoteAgainAt)}`,
          undefined,
          { 'Retry-After': String(reservation.retryAfterSeconds) },
        );
      }
      const issued = issueQuote({
        key: deps.keys.quotes,
        domain,
        priceCents: listing.price_cents,
        currency: listing.currency,
        partnerId: caller.partner.id,
        environment,
        issuedAt: caller.businessNow,
        validitySeconds: QUOTE_VALIDITY_SECONDS,
        expiresAt: reservation.expiresAt,
      });
      await tx.orders.insertQuote({
        quote_id: issued.quoteId,
        partner_id: caller.partner.id,
        environment,
        domain,
        price_cents: listing.price_cents,
        expires_at: issued.expiresAt,
        created_at: caller.now,
      });
      // On the listing row too, where an order at the same instant decides: one of the two waits
      // for the other and then finds the domain reserved, or sold (POST /quotes, description).
      if (deps.faults?.has('quote-order-race')) await new Promise((resolve) => setTimeout(resolve, 50));
      else if (!(await tx.orders.reserveListing(environment, domain, caller.partner.id, issued.expiresAt)))
        throw new ApiError('not_found', `Domain "${domain}" is already sold`);
      return issued;
    };
    // One decision per domain at a time: partners quoting it at the same instant are taken in
    // turn, so only the first finds it free (x-quote-reservation).
    const { quoteId, expiresAt } = deps.faults?.has('quotes-race')
      ? await reserve(deps.store)
      : await deps.store.transaction(async (tx) => {
          await tx.orders.holdQuotesOf(environment, domain);
          return reserve(tx);
        });
    const body: Schemas['Quote'] = {
      quote_id: quoteId,
      domain,
      price_cents: listing.price_cents,
      currency: listing.currency,
      expires_at: rfc3339(expiresAt),
    };
    res.json(body);
  };
}

/**
 * The outcome of executing POST /orders once: the order created, or a refusal, which is thrown
 * (after it is stored) so the one error writer (http/errors.ts) answers it like every other error.
 */
type Outcome = { created: true; body: Schemas['Order']; deliveries: number } | { created: false; refusal: ApiError };

/** The claimed key whose answer is stored with the outcome; absent when keys are ignored (a fault). */
interface Answering {
  keyId: string;
  key: string;
}

/**
 * Decides the order from one read, then writes it with its events, deliveries, timeline and stored
 * answer in one durable write (store/order-placement.ts). A refusal is stored on its own; a
 * validation error is thrown and never stored.
 */
async function executeOrder(
  deps: PartnerDeps,
  caller: Caller,
  request: Schemas['OrderRequest'],
  bodyOf: (err: ApiError) => Record<string, unknown>,
  answering: Answering | undefined,
  sight: OrderSight,
): Promise<Outcome> {
  // The stored body is the one the error writer answers now, so a replay repeats it byte for byte.
  const refuse = async (code: Schemas['ErrorCode'], message: string): Promise<Outcome> => {
    const refusal = new ApiError(code, message);
    if (answering && isStoredOutcome(refusal.status, code))
      await deps.store.idempotency.complete(
        answering.keyId,
        answering.key,
        refusal.status,
        JSON.stringify(bodyOf(refusal)),
        {},
      );
    return { created: false, refusal };
  };
  const environment = caller.credential.environment;
  const { domain } = request;
  // Before the domain's state: a quote that is not the caller's answers alike whatever that is.
  const quote = requestQuote(deps, caller, request);
  const listing = sight.listing;
  if (!listing) return refuse('not_found', `Domain "${domain}" is not listed`);
  if (listing.status !== 'listed' || sight.liveOrder) return refuse('not_found', `Domain "${domain}" is already sold`);
  if (sight.reservedUntil !== null) {
    return refuse(
      'domain_reserved',
      `Domain "${domain}" is reserved by another partner's quote until ${rfc3339(sight.reservedUntil)}`,
    );
  }

  if (quote.kind === 'expired') return refuse(quote.code, quote.message);
  const price = quote.kind === 'valid' ? quote.priceCents : listing.price_cents;
  if (request.expected_price !== price || request.currency !== listing.currency) {
    const what = request.quote_id ? 'quoted' : 'current';
    return refuse(
      'price_mismatch',
      `expected_price ${request.expected_price} ${request.currency} differs from the ${what} price ${price} ${listing.currency} of "${domain}"`,
    );
  }

  const at = caller.businessNow;
  const start = initialState('partner_collected');
  const order: OrderRow = {
    public_id: newId('ord', 16),
    partner_id: caller.partner.id,
    environment,
    domain,
    status: start.status,
    held_from: null,
    sale_price_cents: price,
    currency: listing.currency,
    payment_model: 'partner_collected',
    buyer_email: request.buyer.email,
    buyer_country: request.buyer.country ?? null,
    buyer_account: request.buyer.account ?? null,
    quote_id: request.quote_id ?? null,
    external_payment_ref: request.external_payment_ref ?? null,
    checkout_session_id: null,
    created_at: at,
    updated_at: at,
    transfer_completed_at: null,
  };
  const events = orderEvents(order, start.events, at);
  const body = toOrder(order);
  // Taking the listing is the claim on the domain: of concurrent orders that all read it as
  // listed, only the first to mark it sold writes anything (PostgreSQL re-checks the row once the
  // first commits); the others find it sold, so two orders are never recorded.
  const placed = await deps.store.placement.place({
    order,
    events,
    timeline: { event_type: events[0]?.type ?? null, event_id: events[0]?.id ?? null },
    answer: answering ? { ...answering, statusCode: 201, body: JSON.stringify(body) } : undefined,
    now: caller.now,
  });
  if (!placed.placed) {
    // The take found the domain sold, or reserved by a quote committed after the sight: read again
    // to say which.
    const again = await deps.store.placement.look(environment, domain, caller.partner.id, caller.now);
    if (again.reservedUntil !== null && again.listing?.status === 'listed')
      return refuse(
        'domain_reserved',
        `Domain "${domain}" is reserved by another partner's quote until ${rfc3339(again.reservedUntil)}`,
      );
    return refuse('not_found', `Domain "${domain}" is already sold`);
  }
  return { created: true, body, deliveries: placed.deliveries };
}

export function createOrder(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const credential = credentialOf(res);
    const request = req.body as Schemas['OrderRequest'];
    const key = req.get('idempotency-key') ?? '';
    const keyId = credential.keyId;
    const fp = fingerprint(req.rawBody);
    const ignoreKeys = deps.faults?.has('ignore-idempotency') ?? false;
    const now = deps.clock.now();
    // The key's claim, the caller's partner and what the order is decided from, together
    // (one statement on PostgreSQL: store/order-placement.ts).
    const begun = await deps.store.placement.begin({
      environment: credential.environment,
      domain: request.domain,
      partnerId: credential.partnerId,
      now,
      claim: ignoreKeys ? undefined : { keyId, key, fingerprint: fp },
    });
    const caller = callerFrom(credential, begun.partner, now);
    const claim = begun.claim ?? ({ claimed: true } as const);
    if (!claim.claimed) {
      const stored = replayOrThrow(decideForExistingKey(claim.existing, fp, key, caller.now));
      return sendReplay(res, stored.statusCode, stored.body, { 'Content-Type': 'application/json; charset=utf-8' });
    }

    const bodyOf = (err: ApiError) => errorBody(res, err, deps.faults);
    let outcome: Outcome;
    try {
      outcome = await executeOrder(deps, caller, request, bodyOf, ignoreKeys ? undefined : { keyId, key }, begun.sight);
    } catch (err) {
      // Validation errors and 5xx are not stored: the key is free for a corrected retry.
      if (!ignoreKeys) await deps.store.idempotency.release(keyId, key);
      throw err;
    }
    if (!outcome.created) throw outcome.refusal;
    if (outcome.deliveries) deps.notifyOutbox();
    res.status(201).json(outcome.body);
  };
}

const ORDER_FILTERS = ['status', 'domain', 'from', 'to'] as const;

export function listOrders(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const list = partnerCursorList(deps, req, `orders:${caller.partner.id}`, ORDER_FILTERS);
    const after = list.after ? { createdAt: Number(list.after[0]), publicId: String(list.after[1]) } : undefined;
    const rows = await deps.store.orders.listOrders(
      {
        partnerId: caller.partner.id,
        status: queryString(req, 'status'),
        domain: queryString(req, 'domain'),
        ...dateWindow(req),
      },
      list.fetch,
      after,
    );
    // The faults hand out a cursor one row too early (a duplicate) or too late (a gap).
    const shift = (deps.faults?.has('duplicate-page-items') ? -1 : 0) + (deps.faults?.has('drop-page-items') ? 1 : 0);
    const { data, next_cursor } = list.page(rows, (r) => [r.created_at, r.public_id], shift);
    const body: Schemas['OrderList'] = { data: data.map(toOrder), next_cursor };
    res.json(body);
  };
}

async function ownOrder(deps: PartnerDeps, caller: Caller, publicId: string): Promise<OrderRow> {
  const order = await deps.store.orders.findOrder(publicId);
  // Another partner's order is indistinguishable from a missing one.
  if (!order || (order.partner_id !== caller.partner.id && !deps.faults?.has('foreign-orders-visible')))
    throw new ApiError('not_found', `Order "${publicId}" not found`);
  return order;
}

export function getOrder(deps: PartnerDeps): RequestHandler {
  return async (_req, res) => {
    const caller = await callerOf(deps, res);
    const order = await ownOrder(deps, caller, res.locals.pathParams?.public_id ?? '');
    res.json(toOrderDetail(order, await deps.store.orders.timeline(order.public_id)));
  };
}

export function createRefund(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const { public_id, reason } = req.body as Schemas['RefundRequest'];
    const detail = await deps.store.transaction(async (tx) => {
      const order = await tx.orders.findOrder(public_id);
      if (!order || order.partner_id !== caller.partner.id)
        throw new ApiError('not_found', `Order "${public_id}" not found`);
      const updated = await applyMove(tx, order, 'partner-refund', caller.businessNow, caller.now, reason ?? null);
      return toOrderDetail(updated, await tx.orders.timeline(public_id));
    });
    deps.notifyOutbox();
    res.json(detail);
  };
}
