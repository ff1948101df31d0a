// Service-collected sales the way a buyer makes them: the partner opens a hosted checkout
// session (POST /checkout-session), the buyer's browser opens `checkout_url` and submits its
// payment form with the sandbox test card (createCheckoutSession and payCheckout in the
// contract); the redirect to `return_url` names the new PAID order. Also the operator moves the
// lifecycle families share.
import { CheckFailure, expect, expectStatus, type Context } from '../context.ts';
import { jsonOf, type Credentials, type Exchange } from '../http.ts';
import { parseForms } from '../oauth-flow.ts';
import { partnerOp, type Listed, type OrderJson } from './orders-support.ts';

/** The sandbox card that pays (CheckoutPayForm). */
export const PAYING_CARD = '4242424242424242';

export interface Session {
  session_id: string;
  checkout_url: string;
  exchange: Exchange;
}

export async function openCheckout(
  ctx: Context,
  credentials: Credentials,
  listed: Listed,
  extra: Record<string, unknown> = {},
): Promise<Session> {
  const op = partnerOp(ctx, 'createCheckoutSession');
  const exchange = await ctx.http.signed({
    method: 'POST',
    target: op.operation.path,
    credentials,
    body: JSON.stringify({
      domain: listed.domain,
      expected_price: listed.price,
      currency: listed.currency,
      buyer: { email: 'buyer.conformance@example.org' },
      return_url: 'https://partner.example.net/checkout/done',
      cancel_url: 'https://partner.example.net/checkout/cancelled',
      ...extra,
    }),
    operation: op.operation,
    rateClass: op.rateClass,
  });
  expectStatus(exchange, 201, `opening a hosted checkout session for ${listed.domain}`);
  const body = jsonOf(exchange) as { session_id?: string; checkout_url?: string };
  expect(
    typeof body.checkout_url === 'string' && typeof body.session_id === 'string',
    'the checkout session has no checkout_url or session_id',
    [exchange],
  );
  return { session_id: body.session_id, checkout_url: body.checkout_url, exchange };
}

/** The checkout page's path and query on the deployment (checkout_url is absolute). */
export function pagePath(ctx: Context, session: Session): string {
  const url = new URL(session.checkout_url);
  return `${url.pathname}${url.search}`;
}

/**
 * Opens the checkout page and submits its payment form with the test card, whatever the answer.
 * `cookie`: what the buyer's browser sends along (a referral click's cookie); `deliberate`: a
 * refusal is what the check expects.
 */
export async function submitPayment(
  ctx: Context,
  session: Session,
  options: { cookie?: string | undefined; deliberate?: boolean } = {},
): Promise<{ page: Exchange; paid: Exchange }> {
  const withCookie: Record<string, string> = options.cookie ? { cookie: options.cookie } : {};
  const page = await ctx.http.send({
    target: pagePath(ctx, session),
    headers: { accept: 'text/html', ...withCookie },
    operation: { method: 'GET', path: '/checkout' },
    rateClass: 'public',
  });
  expectStatus(page, 200, 'opening the hosted checkout page');
  const form = parseForms(page.responseBody).find((f) => f.method === 'post' && 'pt' in f.fields);
  if (!form) throw new CheckFailure('the checkout page has no POST form with the pt token', [page]);
  const action = new URL(form.action || '/checkout/pay', `${ctx.http.baseUrl}/checkout`);
  const fields = new URLSearchParams({
    ...form.fields,
    card_number: PAYING_CARD,
    exp_month: '12',
    exp_year: '2099',
    cvc: '123',
    cardholder_name: 'Conformance Buyer',
  });
  const paid = await ctx.http.send({
    method: 'POST',
    target: action.pathname,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...withCookie },
    body: fields.toString(),
    operation: { method: 'POST', path: '/checkout/pay' },
    rateClass: 'public',
    ...(options.deliberate ? { deliberate: true } : {}),
  });
  return { page, paid };
}

/**
 * Opens the checkout page and pays with the test card; returns the PAID order's public_id (from
 * the redirect). `cookie`: what the buyer's browser sends along (a referral click's cookie).
 */
export async function payCheckout(
  ctx: Context,
  session: Session,
  cookie?: string,
): Promise<{ publicId: string; exchanges: Exchange[] }> {
  const { page, paid } = await submitPayment(ctx, session, { cookie });
  expectStatus(paid, 303, 'paying the hosted checkout with the sandbox test card');
  const publicId = new URL(paid.responseHeaders.location ?? '', 'https://partner.example.net').searchParams.get(
    'public_id',
  );
  if (!publicId) throw new CheckFailure('after paying, the redirect to return_url carries no public_id', [paid]);
  return { publicId, exchanges: [page, paid] };
}

/** A PAID (service-collected) order of the partner, through a hosted checkout. */
export async function paidOrder(ctx: Context, credentials: Credentials, listed: Listed): Promise<string> {
  return (await payCheckout(ctx, await openCheckout(ctx, credentials, listed))).publicId;
}

/** One operator move of an order (applyOrderAction); fails unless 200. */
export async function operatorMove(
  ctx: Context,
  publicId: string,
  action: string,
  why = `the operator move ${action} of ${publicId}`,
): Promise<OrderJson & { timeline: unknown[]; payment_model?: string }> {
  if (!ctx.admin) throw new Error('operatorMove needs the operator API');
  const res = await ctx.admin.post(`/orders/${publicId}/${action}`, {});
  if (res.status !== 200)
    throw new CheckFailure(`${why}: expected 200, got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`, [
      res.exchange,
    ]);
  return res.body as OrderJson & { timeline: unknown[] };
}

/** GET /orders/{public_id} as a partner. */
export async function readOrder(
  ctx: Context,
  credentials: Credentials,
  publicId: string,
  deliberate = false,
): Promise<Exchange> {
  const op = partnerOp(ctx, 'getOrder');
  return ctx.http.signed({
    target: op.operation.path.replace('{public_id}', encodeURIComponent(publicId)),
    credentials,
    operation: op.operation,
    rateClass: op.rateClass,
    deliberate,
  });
}
