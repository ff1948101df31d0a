// The hosted checkout pages (public contract: getCheckoutPage, payCheckout, cancelCheckout) and
// the tracked referral link (followReferralLink). Server-rendered HTML that works without
// JavaScript; errors are HTML pages, or the Error body when Accept prefers application/json.
// The pay form carries the signed `pt` and nothing else proves the buyer's intent: that is
// enough against CSRF because a session can be paid only once and only at its own price.
import express, { type Request, type Response, type Router } from 'express';
import { buyerUrlProblem } from '../domain/buyer-url.ts';
import {
  formatPrice,
  readCheckoutToken,
  returnUrlWithOrder,
  sandboxCardOutcome,
  sessionState,
} from '../domain/checkout.ts';
import { initialState } from '../domain/order-state.ts';
import { RESERVATION_MAX_SECONDS } from '../domain/quote-reservation.ts';
import {
  isWithinAttributionWindow,
  linkDestination,
  REFERRAL_COOKIE,
  ATTRIBUTION_WINDOW_MS,
} from '../domain/referral.ts';
import { readCookie, setCookie } from '../http/cookies.ts';
import { ApiError, type ErrorCode } from '../http/errors.ts';
import { allowFormTargets, cspSourceOf } from '../http/security-headers.ts';
import { newId } from '../ids.ts';
import { checkoutKey } from '../partner/checkout.ts';
import type { PartnerDeps } from '../partner/context.ts';
import { writeOrderEvents } from '../partner/order-moves.ts';
import { accrueCommission } from '../partner/referral-ledger.ts';
import type { CheckoutSessionRow } from '../store/checkout.ts';
import type { Repositories } from '../store/index.ts';
import type { OrderRow } from '../store/orders.ts';
import { escapeHtml, htmlPage } from './html.ts';

const TOKEN_FORM = /^[A-Za-z0-9_.~-]{16,2048}$/;
const CLICK_FORM = /^clk_[0-9A-Za-z]{6,40}$/;

// Colours meet WCAG AA contrast on white (#1a1a1a 17:1, #1d4ed8 6.7:1, #b91c1c 6.5:1); focus is
// a thick outline that never depends on colour alone.
const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a;background:#fff}' +
  'label{display:block;margin-top:.75rem;font-weight:600}input{font:inherit;padding:.4rem;border:1px solid #555;border-radius:4px;width:100%;box-sizing:border-box}' +
  '.row{display:flex;gap:.75rem}.row>div{flex:1}button{font:inherit;margin-top:1rem;padding:.5rem 1.25rem;border-radius:4px;border:2px solid #1d4ed8;cursor:pointer}' +
  '.pay{background:#1d4ed8;color:#fff}.cancel{background:#fff;color:#1d4ed8}' +
  ':focus-visible{outline:3px solid #1a1a1a;outline-offset:2px}.alert{color:#b91c1c;font-weight:600}.hint{color:#444;font-size:.9rem}';

const page = (title: string, main: string) => htmlPage(title, STYLE, main);

function checkoutPage(session: CheckoutSessionRow, pt: string, alert?: string): string {
  const sandbox = session.environment === 'sandbox';
  return page(
    `Checkout - ${session.domain}`,
    `<h1>${escapeHtml(session.domain)}</h1>
<p>Price: <strong>${escapeHtml(formatPrice(session.price_cents, session.currency))}</strong></p>
<p>Buyer: ${escapeHtml(session.buyer_email)}</p>
${alert ? `<p class="alert" role="alert" id="payment-error">${escapeHtml(alert)}</p>\n` : ''}<form method="post" action="/checkout/pay">
<input type="hidden" name="pt" value="${escapeHtml(pt)}">
<label for="card_number">Card number</label>
<input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required pattern="[0-9 ]{12,23}"${alert ? ' aria-describedby="payment-error card-hint"' : ' aria-describedby="card-hint"'}>
${sandbox ? '<p class="hint" id="card-hint">Sandbox: 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined.</p>' : '<p class="hint" id="card-hint">Your card is charged once you select Pay.</p>'}
<div class="row">
<div><label for="exp_month">Expiry month</label>
<input id="exp_month" name="exp_month" inputmode="numeric" autocomplete="cc-exp-month" required pattern="[0-9]{1,2}"></div>
<div><label for="exp_year">Expiry year</label>
<input id="exp_year" name="exp_year" inputmode="numeric" autocomplete="cc-exp-year" required pattern="[0-9]{4}"></div>
<div><label for="cvc">Security code (CVC)</label>
<input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" required pattern="[0-9]{3,4}"></div>
</div>
<label for="cardholder_name">Name on card</label>
<input id="cardholder_name" name="cardholder_name" autocomplete="cc-name" maxlength="200">
<button type="submit" class="pay">Pay ${escapeHtml(formatPrice(session.price_cents, session.currency))}</button>
</form>
<form method="post" action="/checkout/cancel">
<input type="hidden" name="pt" value="${escapeHtml(pt)}">
<button type="submit" class="cancel">Cancel and return</button>
</form>`,
  );
}

const TITLES: Partial<Record<ErrorCode, string>> = {
  validation_error: 'Checkout link not valid',
  invalid_state: 'Checkout already complete',
  session_expired: 'Checkout expired',
  not_found: 'Page not found',
  unsupported_media_type: 'Form not understood',
};

/**
 * A page title of its own for one refusal whose code's title would mislead the buyer: the domain
 * sold elsewhere or reserved meanwhile is `invalid_state`, as a session already paid is, but the
 * checkout is not complete.
 */
const pageTitles = new WeakMap<ApiError, string>();
const titled = (err: ApiError, title: string): ApiError => {
  pageTitles.set(err, title);
  return err;
};

const wantsJson = (req: Request) => req.accepts(['text/html', 'application/json']) === 'application/json';

/** An error as a page for a browser, or thrown to the error handler (Error body) for JSON clients. */
function fail(req: Request, res: Response, err: ApiError): void {
  if (wantsJson(req)) throw err;
  const title = pageTitles.get(err) ?? TITLES[err.code] ?? 'Something went wrong';
  res
    .status(err.status)
    .type('html')
    .send(page(title, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(err.message)}</p>`));
}

/**
 * Sends the buyer on to the session's return or cancel address (303) when it keeps the rule of
 * x-url-rule (BuyerRedirectUrl); false, and nothing sent, for a stored address that does not
 * (a session created before the rule): the caller then shows a page instead.
 */
function leaveFor(
  res: Response,
  session: CheckoutSessionRow,
  member: 'return_url' | 'cancel_url',
  url: string,
): boolean {
  if (buyerUrlProblem(session[member], session.environment) !== undefined) return false;
  res.redirect(303, url);
  return true;
}

// The token is in the page's URL: Referrer-Policy (no-referrer, server/http/security-headers.ts)
// keeps it from leaking to other sites.
function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Accept');
}

/** The page's forms may lead to the session's return and cancel addresses (x-form-action), when they keep the rule. */
function allowSessionTargets(res: Response, session: CheckoutSessionRow): void {
  const source = (member: 'return_url' | 'cancel_url') =>
    buyerUrlProblem(session[member], session.environment) === undefined ? cspSourceOf(session[member]) : undefined;
  allowFormTargets(res, { return_url: source('return_url'), cancel_url: source('cancel_url') });
}

function form(req: Request): URLSearchParams {
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.get('content-type') ?? '')) {
    throw new ApiError('unsupported_media_type', 'Send the form as application/x-www-form-urlencoded');
  }
  return new URLSearchParams(req.rawBody.toString('utf8'));
}

interface Loaded {
  session: CheckoutSessionRow;
  businessNow: number;
}

/** The session a token names, checked in the order of the contract: token, then paid, then expiry. */
async function loadSession(deps: PartnerDeps, pt: string | undefined): Promise<Loaded> {
  const invalid = new ApiError(
    'validation_error',
    'This checkout link is not valid. Ask the site you came from for a new one.',
    [{ path: '/query/pt', message: 'is not a valid checkout token' }],
  );
  if (!pt || !TOKEN_FORM.test(pt)) throw invalid;
  const token = readCheckoutToken(checkoutKey(deps), pt);
  if (!token.ok) throw invalid;
  const session = await deps.store.checkout.findSession(token.payload.sessionId);
  if (!session || session.partner_id !== token.payload.partnerId) throw invalid;
  const partner = await deps.store.credentials.findPartner(session.partner_id);
  const businessNow = deps.clock.now() + (partner?.clockOffsetMs ?? 0);
  const state = sessionState({ expiresAt: session.expires_at, paid: session.order_id !== null }, businessNow);
  if (state === 'paid')
    throw new ApiError(
      'invalid_state',
      `This checkout is already complete: order ${session.order_id} was paid. Nothing more is charged.`,
    );
  if (state === 'expired')
    throw new ApiError(
      'session_expired',
      'This checkout expired (sessions last 7 days). Return to the site you came from to start again.',
    );
  return { session, businessNow };
}

/** The buyer's referral click, when it is one of the session's partner's and still in its window. */
async function referralClick(
  tx: Pick<Repositories, 'referral'>,
  session: CheckoutSessionRow,
  clickId: string | undefined,
  at: number,
  /** Test-only (server/faults.ts `attribution-window-ignored`). */
  ignoreWindow = false,
) {
  if (!clickId || !CLICK_FORM.test(clickId)) return undefined;
  const click = await tx.referral.findClick(clickId);
  const inWindow = ignoreWindow || isWithinAttributionWindow(click?.created_at ?? 0, at);
  if (!click || click.partner_id !== session.partner_id || !inWindow) return undefined;
  return click;
}

/** Records the paid order; throws (rolling everything back) when the session or domain is taken. */
async function pay(deps: PartnerDeps, loaded: Loaded, cookieClick: string | undefined): Promise<string> {
  const { session, businessNow: at } = loaded;
  const ignoreWindow = deps.faults?.has('attribution-window-ignored') === true;
  return deps.store.transaction(async (tx) => {
    const environment = session.environment;
    const listing = await tx.inventory.find(environment, session.domain);
    const gone = titled(
      new ApiError(
        'invalid_state',
        `${session.domain} is no longer available: it was sold elsewhere. Nothing was charged.`,
      ),
      'Domain no longer available',
    );
    if (!listing || listing.status !== 'listed' || (await tx.orders.liveOrderFor(environment, session.domain)))
      throw gone;
    // Another partner's quote made after the session was created holds the domain until it ends
    // (POST /checkout/pay, description): nothing is charged, and the session can be paid after.
    const now = deps.clock.now();
    const reserved = titled(
      new ApiError(
        'invalid_state',
        `${session.domain} is reserved for another buyer for at most ${RESERVATION_MAX_SECONDS / 60} more minutes. Nothing was charged; you can pay after that, while this checkout lasts.`,
      ),
      'Domain reserved for now',
    );
    const ignoreReservation = deps.faults?.has('checkout-pay-ignores-reservation') === true;
    if (!ignoreReservation && (await tx.orders.reservationOn(listing, session.partner_id, now))) throw reserved;
    const publicId = newId('ord', 16);
    if (!(await tx.checkout.claimPayment(session.session_id, publicId, at))) {
      throw new ApiError('invalid_state', 'This checkout is already complete. Nothing more is charged.');
    }
    // The sale decides on the listing row as its UPDATE finds it: a quote committed meanwhile is seen.
    const sale = ignoreReservation ? undefined : { partnerId: session.partner_id, now };
    if (!(await tx.inventory.markSold(environment, session.domain, sale))) {
      const meanwhile = await tx.orders.reservationByOther(environment, session.domain, session.partner_id, now);
      throw meanwhile ? reserved : gone;
    }
    const start = initialState('service_collected');
    const order: OrderRow = {
      public_id: publicId,
      partner_id: session.partner_id,
      environment,
      domain: session.domain,
      status: start.status,
      held_from: null,
      sale_price_cents: session.price_cents,
      currency: session.currency,
      payment_model: 'service_collected',
      buyer_email: session.buyer_email,
      buyer_country: session.buyer_country,
      buyer_account: session.buyer_account,
      quote_id: session.quote_id,
      external_payment_ref: null,
      checkout_session_id: session.session_id,
      created_at: at,
      updated_at: at,
      transfer_completed_at: null,
    };
    await tx.orders.insertOrder(order);
    const first = await writeOrderEvents(tx, order, start.events, at, deps.clock.now());
    await tx.orders.appendTimeline({
      public_id: publicId,
      status: order.status,
      event_type: first?.type ?? null,
      event_id: first?.id ?? null,
      at,
      note: 'Paid through hosted checkout',
    });
    // The click the session started from, else one the buyer brings to the payment itself.
    const click =
      (await referralClick(tx, session, session.click_id ?? undefined, at, ignoreWindow)) ??
      (await referralClick(tx, session, cookieClick, at, ignoreWindow));
    if (click) {
      if (!session.click_id) await tx.checkout.attachReferral(session.session_id, click.click_id, click.link_id, at);
      await accrueCommission(tx, order, click, at);
    }
    return publicId;
  });
}

function validatePayForm(f: URLSearchParams): ApiError | undefined {
  const details: Array<{ path: string; message: string }> = [];
  const check = (name: string, ok: (v: string) => boolean, message: string, required = true) => {
    const v = f.get(name);
    if (v === null ? required : !ok(v)) details.push({ path: `/body/${name}`, message });
  };
  check('card_number', (v) => /^[0-9 ]{12,23}$/.test(v), 'must be a card number of 12 to 19 digits');
  check(
    'exp_month',
    (v) => /^[0-9]{1,2}$/.test(v) && Number(v) >= 1 && Number(v) <= 12,
    'must be a month from 1 to 12',
  );
  check('exp_year', (v) => /^[0-9]{4}$/.test(v) && Number(v) >= 2000 && Number(v) <= 2099, 'must be a four-digit year');
  check('cvc', (v) => /^[0-9]{3,4}$/.test(v), 'must be 3 or 4 digits');
  check('cardholder_name', (v) => v.length <= 200, 'must be at most 200 characters', false);
  if (details.length === 0) return undefined;
  return new ApiError(
    'validation_error',
    `Check the card details: ${details.map((d) => `${d.path.slice(6)} ${d.message}`).join('; ')}`,
    details,
  );
}

export function hostedPagesRouter(deps: PartnerDeps): Router {
  const router = express.Router();

  router.get('/checkout', async (req, res) => {
    noStore(res);
    const pt = typeof req.query.pt === 'string' ? req.query.pt : undefined;
    let loaded: Loaded;
    try {
      loaded = await loadSession(deps, pt);
    } catch (err) {
      if (err instanceof ApiError) return fail(req, res, err);
      throw err;
    }
    allowSessionTargets(res, loaded.session);
    // Opening the page from a referral click is the funnel's "checkout started".
    if (!loaded.session.click_id) {
      const ref = typeof req.query.ref === 'string' ? req.query.ref : readCookie(req, REFERRAL_COOKIE);
      const click = await referralClick(
        deps.store,
        loaded.session,
        ref,
        loaded.businessNow,
        deps.faults?.has('attribution-window-ignored'),
      );
      if (click)
        await deps.store.checkout.attachReferral(
          loaded.session.session_id,
          click.click_id,
          click.link_id,
          loaded.businessNow,
        );
    }
    res.type('html').send(checkoutPage(loaded.session, pt ?? ''));
  });

  router.post('/checkout/pay', async (req, res) => {
    noStore(res);
    try {
      const f = form(req);
      const pt = f.get('pt') ?? undefined;
      const loaded = await loadSession(deps, pt);
      allowSessionTargets(res, loaded.session);
      const invalid = validatePayForm(f);
      if (invalid) {
        if (wantsJson(req)) throw invalid;
        res
          .status(400)
          .type('html')
          .send(checkoutPage(loaded.session, pt ?? '', invalid.message));
        return;
      }
      const outcome = sandboxCardOutcome(f.get('card_number') ?? '');
      const expiry = Date.UTC(Number(f.get('exp_year')), Number(f.get('exp_month')), 1);
      const decline =
        outcome === 'declined'
          ? 'Your card was declined. Nothing was charged.'
          : outcome === 'not_a_test_card'
            ? 'Only the sandbox test cards are accepted here. Nothing was charged.'
            : expiry <= loaded.businessNow
              ? 'Your card has expired. Nothing was charged.'
              : undefined;
      if (decline) {
        res
          .status(200)
          .type('html')
          .send(checkoutPage(loaded.session, pt ?? '', decline));
        return;
      }
      const publicId = await pay(deps, loaded, readCookie(req, REFERRAL_COOKIE));
      deps.notifyOutbox();
      if (!leaveFor(res, loaded.session, 'return_url', returnUrlWithOrder(loaded.session.return_url, publicId))) {
        res
          .status(200)
          .type('html')
          .send(
            page(
              'Payment received',
              `<h1>Payment received</h1>\n<p role="status">${escapeHtml(loaded.session.domain)} is paid: order <code>${escapeHtml(publicId)}</code>. You can close this page and return to the site you came from.</p>`,
            ),
          );
      }
    } catch (err) {
      if (err instanceof ApiError) return fail(req, res, err);
      throw err;
    }
  });

  router.post('/checkout/cancel', async (req, res) => {
    noStore(res);
    try {
      const loaded = await loadSession(deps, form(req).get('pt') ?? undefined);
      if (!leaveFor(res, loaded.session, 'cancel_url', loaded.session.cancel_url)) {
        res
          .status(200)
          .type('html')
          .send(
            page(
              'Checkout cancelled',
              '<h1>Checkout cancelled</h1>\n<p role="status">Nothing was charged. You can close this page and return to the site you came from.</p>',
            ),
          );
      }
    } catch (err) {
      if (err instanceof ApiError) return fail(req, res, err);
      throw err;
    }
  });

  router.get('/r/:code', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const code = String(req.params.code ?? '');
    const link = /^[A-Za-z0-9_-]{4,64}$/.test(code) ? await deps.store.referral.findLinkByCode(code) : undefined;
    if (!link) return fail(req, res, new ApiError('not_found', 'This referral link does not exist.'));
    const base = deps.baseUrl(req);
    // What counts as a click (followReferralLink): a GET, HEAD being safe (RFC 9110 §9.3.2), by a
    // browser whose cookie does not already name a click on this link within its window. Such a
    // repeat keeps its cookie, which expires with that click's window, and the first click.
    if (req.method === 'GET') {
      const partner = await deps.store.credentials.findPartner(link.partner_id);
      const now = deps.clock.now() + (partner?.clockOffsetMs ?? 0);
      const carried = readCookie(req, REFERRAL_COOKIE);
      const earlier = carried && CLICK_FORM.test(carried) ? await deps.store.referral.findClick(carried) : undefined;
      const repeat = earlier?.link_id === link.link_id && isWithinAttributionWindow(earlier.created_at, now);
      if (!repeat) {
        const clickId = newId('clk', 16);
        await deps.store.referral.insertClick({
          click_id: clickId,
          link_id: link.link_id,
          partner_id: link.partner_id,
          created_at: now,
        });
        setCookie(
          res,
          { name: REFERRAL_COOKIE, value: clickId, path: '/', maxAgeSeconds: ATTRIBUTION_WINDOW_MS / 1000 },
          base,
        );
      }
    }
    const q = req.originalUrl.indexOf('?');
    res.redirect(302, linkDestination(base, link, q >= 0 ? req.originalUrl.slice(q + 1) : ''));
  });

  return router;
}
