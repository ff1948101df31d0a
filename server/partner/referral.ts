// Referral (scopes `refer` and `report`, and an affiliate account): tracked links and their
// statistics, clicks, attributed sales, the commission ledger, referral payouts and the funnel.
import type { Request, RequestHandler } from 'express';
import type { components } from '../../generated/partner.d.ts';
import { analyticsWindow, maskEmail, PRODUCTS } from '../domain/referral.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { ApiError } from '../http/errors.ts';
import { newId, randomBase62 } from '../ids.ts';
import type { LinkRow } from '../store/referral.ts';
import { callerOf, dateWindow, partnerCursorList, queryString, type Caller, type PartnerDeps } from './context.ts';

type Schemas = components['schemas'];

/** Listings are priced in USD (the partner document's "Money and time" paragraph), so referral money is too. */
const CURRENCY = 'USD';
const DAY_MS = 86_400_000;

async function affiliateCaller(deps: PartnerDeps, res: Parameters<RequestHandler>[1]): Promise<Caller> {
  const caller = await callerOf(deps, res);
  if (!caller.credential.affiliate) {
    throw new ApiError(
      'forbidden',
      'This credential is not linked to an affiliate account; referral links and reports need one (ask the operator to link it)',
    );
  }
  return caller;
}

function toLink(deps: PartnerDeps, req: Request, row: LinkRow): Schemas['Link'] {
  return {
    link_id: row.link_id,
    type: row.type,
    domain: row.domain,
    product: row.product,
    url: `${deps.baseUrl(req)}/r/${row.code}`,
    created_at: rfc3339(row.created_at),
  };
}

export function createLink(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await affiliateCaller(deps, res);
    const request = req.body as Schemas['LinkRequest'];
    const environment = caller.credential.environment;
    let domain: string | null = null;
    let product: string | null = null;
    if (request.type === 'domain') {
      const listing = await deps.store.inventory.find(environment, request.domain);
      if (!listing || listing.status !== 'listed')
        throw new ApiError('not_found', `Domain "${request.domain}" is not listed`);
      domain = request.domain;
    } else if (request.type === 'product') {
      if (!(PRODUCTS as readonly string[]).includes(request.product))
        throw new ApiError(
          'not_found',
          `Product "${request.product}" is not known; products are ${PRODUCTS.join(', ')}`,
        );
      product = request.product;
    }
    const row: LinkRow = {
      link_id: newId('lnk', 16),
      code: randomBase62(12),
      partner_id: caller.partner.id,
      environment,
      type: request.type,
      domain,
      product,
      created_at: caller.businessNow,
    };
    await deps.store.referral.insertLink(row);
    res.status(201).json(toLink(deps, req, row));
  };
}

export function listLinks(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await affiliateCaller(deps, res);
    const type = queryString(req, 'type');
    const list = partnerCursorList(deps, req, `links:${caller.partner.id}`, ['type']);
    const p = list.after;
    const rows = await deps.store.referral.listLinks(
      caller.partner.id,
      type,
      list.fetch,
      p ? { createdAt: Number(p[0]), linkId: String(p[1]) } : undefined,
    );
    const { data, next_cursor } = list.page(rows, (r) => [r.created_at, r.link_id]);
    const stats = await deps.store.referral.linkStats(data.map((r) => r.link_id));
    const body: Schemas['LinkList'] = {
      data: data.map((r) => ({ ...toLink(deps, req, r), stats: { ...stats.get(r.link_id)!, currency: CURRENCY } })),
      next_cursor,
    };
    res.json(body);
  };
}

export function getReferralClicks(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await affiliateCaller(deps, res);
    const window = dateWindow(req);
    const report = await deps.store.referral.clickReport(caller.partner.id, window);
    const body: Schemas['ClickReport'] = {
      from: window.from === undefined ? null : rfc3339(window.from),
      to: window.to === undefined ? null : rfc3339(window.to),
      total_clicks: report.total,
      by_link: report.byLink,
      by_day: report.byDay.map((d) => ({ date: rfc3339(d.day * DAY_MS).slice(0, 10), clicks: d.clicks })),
    };
    res.json(body);
  };
}

export function listReferralSales(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await affiliateCaller(deps, res);
    const window = dateWindow(req);
    const list = partnerCursorList(deps, req, `referral-sales:${caller.partner.id}`, ['from', 'to']);
    const p = list.after;
    const rows = await deps.store.referral.listSales(
      caller.partner.id,
      window,
      list.fetch,
      p ? { soldAt: Number(p[0]), publicId: String(p[1]) } : undefined,
    );
    const { data, next_cursor } = list.page(rows, (r) => [r.sold_at, r.public_id]);
    const statuses = await deps.store.referral.latestStatuses(data.map((r) => r.public_id));
    const body: Schemas['ReferralSaleList'] = {
      data: data.map((r) => ({
        public_id: r.public_id,
        link_id: r.link_id,
        domain: r.domain,
        buyer: { email: maskEmail(r.buyer_email), country: r.buyer_country },
        amount_cents: Number(r.amount_cents),
        commission_cents: Number(r.commission_cents),
        commission_status: statuses.get(r.public_id) ?? 'accrued',
        currency: r.currency,
        sold_at: rfc3339(r.sold_at),
      })),
      next_cursor,
    };
    res.json(body);
  };
}

export function listCommissions(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await affiliateCaller(deps, res);
    const status = queryString(req, 'status');
    const list = partnerCursorList(deps, req, `commissions:${caller.partner.id}`, ['status', 'from', 'to']);
    const p = list.after;
    const rows = await deps.store.referral.listLedger(
      caller.partner.id,
      { ...dateWindow(req), status },
      list.fetch,
      p ? Number(p[0]) : undefined,
    );
    const { data, next_cursor } = list.page(rows, (r) => [r.seq]);
    // Test-only (server/faults.ts `payouts-not-debited`): the payouts of the page added back.
    let paidBack = 0;
    const balanceOf = (r: { status: string; amount_cents: number; balance_cents: number }) => {
      if (!deps.faults?.has('payouts-not-debited')) return r.balance_cents;
      if (r.status === 'paid_out') paidBack += r.amount_cents;
      return r.balance_cents + paidBack;
    };
    const body: Schemas['CommissionLedger'] = {
      data: data.map((r) => ({
        entry_id: r.entry_id,
        status: r.status,
        amount_cents: r.amount_cents,
        balance_cents: balanceOf(r),
        currency: r.currency,
        public_id: r.public_id,
        payout_id: r.payout_id,
        created_at: rfc3339(r.created_at),
      })),
      next_cursor,
      balance_cents: (await deps.store.referral.balance(caller.partner.id)) + paidBack,
      currency: CURRENCY,
    };
    res.json(body);
  };
}

export function listReferralPayouts(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await affiliateCaller(deps, res);
    const list = partnerCursorList(deps, req, `referral-payouts:${caller.partner.id}`, ['from', 'to']);
    const p = list.after;
    const { rows, totalCents } = await deps.store.referral.listPayouts(
      caller.partner.id,
      dateWindow(req),
      list.fetch,
      p ? { paidAt: Number(p[0]), payoutId: String(p[1]) } : undefined,
    );
    const { data, next_cursor } = list.page(rows, (r) => [r.paid_at, r.payout_id]);
    const body: Schemas['ReferralPayoutList'] = {
      data: data.map((r) => ({
        payout_id: r.payout_id,
        kind: r.kind,
        amount_cents: Number(r.amount_cents),
        currency: r.currency,
        paid_at: rfc3339(r.paid_at),
      })),
      next_cursor,
      total_paid_cents: totalCents,
      currency: CURRENCY,
    };
    res.json(body);
  };
}

export function getReferralAnalytics(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await affiliateCaller(deps, res);
    const { from, to } = dateWindow(req);
    const window = analyticsWindow(from, to, caller.businessNow);
    const funnel = await deps.store.referral.funnel(caller.partner.id, window);
    const body: Schemas['Analytics'] = {
      from: rfc3339(window.from),
      to: rfc3339(window.to),
      ...funnel,
      currency: CURRENCY,
    };
    res.json(body);
  };
}
