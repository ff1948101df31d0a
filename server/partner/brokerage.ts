// Brokerage (scope `broker`, the list under `report`): eligibility, opening a case, reading one's
// own cases, and the case moves the operator API applies (the admin contract's x-transitions).
import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { components } from '../../generated/partner.d.ts';
import {
  eligibility,
  ineligibleMessage,
  moveCase,
  OPENED_EVENT,
  OPEN_STATUSES,
  type BrokerageAction,
  type BrokerageEventType,
  type BrokerageStatus,
} from '../domain/brokerage.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { ApiError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import type { CaseRow, CaseTimelineRow } from '../store/brokerage.ts';
import type { Environment } from '../store/schema.ts';
import type { Repositories } from '../store/index.ts';
import { callerOf, dateWindow, partnerCursorList, queryString, type Caller, type PartnerDeps } from './context.ts';
import { newEventId } from './order-moves.ts';

type Schemas = components['schemas'];

/** Budgets are in cents of USD (BrokerageCaseRequest.budget). */
const CASE_CURRENCY = 'USD';
/** 256 bits: the token is the buyer's only credential for the progress page. */
const newProgressToken = () => randomBytes(32).toString('base64url');

export const progressPath = (token: string) => `/brokerage/progress/${token}`;

export function toCase(row: CaseRow, base: string): Schemas['BrokerageCase'] {
  return {
    case_id: row.case_id,
    domain: row.domain,
    tier: row.tier as Schemas['BrokerageTier'],
    status: row.status as Schemas['BrokerageStatus'],
    buyer_email: row.buyer_email,
    budget_cents: row.budget_cents,
    currency: row.currency,
    final_price_cents: row.final_price_cents,
    progress_url: `${base}${progressPath(row.progress_token)}`,
    created_at: rfc3339(row.created_at),
    updated_at: rfc3339(row.updated_at),
  };
}

export const toTimeline = (rows: readonly CaseTimelineRow[]): Schemas['BrokerageTimelineEntry'][] =>
  rows.map((t) => ({ status: t.status as Schemas['BrokerageStatus'], at: rfc3339(t.at), note: t.note }));

/** `data.case` of a brokerage event: the case as it is when the event is written. */
const eventCase = (row: CaseRow): Schemas['EventCase'] => ({
  case_id: row.case_id,
  domain: row.domain,
  tier: row.tier as Schemas['BrokerageTier'],
  status: row.status as Schemas['BrokerageStatus'],
  final_price_cents: row.final_price_cents,
  currency: row.currency,
});

async function writeCaseEvent(
  tx: Repositories,
  row: CaseRow,
  type: BrokerageEventType,
  delivered: boolean,
  at: number,
  now: number,
): Promise<string> {
  const id = newEventId(at);
  const body = JSON.stringify({
    id,
    type,
    created_at: rfc3339(at),
    partner_id: row.partner_id,
    data: { case: eventCase(row) },
  });
  await tx.events.append({ id, partnerId: row.partner_id, type, createdAt: at, body }, delivered, now);
  return id;
}

/**
 * Applies an operator move to a stored case: status, timeline entry and event land together in
 * `tx`, or 409 invalid_state names the current status and nothing changes.
 */
export async function applyCaseMove(
  tx: Repositories,
  row: CaseRow,
  action: BrokerageAction,
  options: { finalPriceCents?: number | undefined; note: string | null; at: number; now: number },
): Promise<CaseRow> {
  const result = moveCase(
    { case_id: row.case_id, status: row.status as BrokerageStatus, final_price_cents: row.final_price_cents },
    action,
    options.finalPriceCents,
  );
  if (!result.ok) throw new ApiError('invalid_state', result.message);
  const updated: CaseRow = {
    ...row,
    status: result.status,
    final_price_cents: result.finalPriceCents,
    updated_at: options.at,
    open_domain: OPEN_STATUSES.includes(result.status) ? row.domain : null,
  };
  const moved = await tx.brokerage.updateCase(row.case_id, row.status, {
    status: updated.status,
    final_price_cents: updated.final_price_cents,
    updated_at: updated.updated_at,
    open_domain: updated.open_domain,
  });
  if (!moved) {
    // A concurrent move won: answer as the state machine would from the status it left.
    const now = await tx.brokerage.findCase(row.case_id);
    throw new ApiError(
      'invalid_state',
      `Brokerage case ${row.case_id} is ${now?.status ?? 'gone'}; ${action} was not applied`,
    );
  }
  const eventId = await writeCaseEvent(tx, updated, result.event, result.webhook, options.at, options.now);
  await tx.brokerage.appendTimeline({
    case_id: row.case_id,
    status: updated.status,
    event_id: eventId,
    at: options.at,
    note: options.note,
  });
  return updated;
}

/** Listed for sale in the environment (status `listed`; a sold domain is no longer listed). */
async function isListed(
  store: { inventory: Pick<PartnerDeps['store']['inventory'], 'find'> },
  environment: Environment,
  domain: string,
): Promise<boolean> {
  return (await store.inventory.find(environment, domain))?.status === 'listed';
}

export function getBrokerageEligibility(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const domain = queryString(req, 'domain') ?? '';
    const open =
      !deps.faults?.has('eligibility-ignores-open-cases') &&
      (await deps.store.brokerage.hasOpenCase(caller.credential.environment, domain));
    const listed = await isListed(deps.store, caller.credential.environment, domain);
    const body: Schemas['BrokerageEligibility'] = eligibility(domain, open, listed);
    res.json(body);
  };
}

export function createBrokerageCase(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const request = req.body as Schemas['BrokerageCaseRequest'];
    const environment = caller.credential.environment;
    const at = caller.businessNow;
    const row = await deps.store.transaction(async (tx) => {
      const verdict = eligibility(
        request.domain,
        await tx.brokerage.hasOpenCase(environment, request.domain),
        await isListed(tx, environment, request.domain),
      );
      if (!verdict.eligible) throw new ApiError('invalid_state', ineligibleMessage(verdict));
      const created: CaseRow = {
        case_id: newId('brk', 16),
        partner_id: caller.partner.id,
        environment,
        domain: request.domain,
        open_domain: request.domain,
        tier: request.tier,
        buyer_email: request.buyer_email,
        budget_cents: request.budget,
        currency: CASE_CURRENCY,
        status: 'open',
        final_price_cents: null,
        progress_token: newProgressToken(),
        created_at: at,
        updated_at: at,
      };
      // The unique open-domain index settles a race the read above cannot see.
      if (!(await tx.brokerage.insertCase(created)))
        throw new ApiError(
          'invalid_state',
          ineligibleMessage({ domain: request.domain, eligible: false, reason: 'open_case' }),
        );
      const eventId = await writeCaseEvent(tx, created, OPENED_EVENT, false, at, caller.now);
      await tx.brokerage.appendTimeline({
        case_id: created.case_id,
        status: created.status,
        event_id: eventId,
        at,
        note: null,
      });
      return created;
    });
    res.status(201).json(toCase(row, deps.baseUrl(req)));
  };
}

async function ownCase(deps: PartnerDeps, caller: Caller, caseId: string): Promise<CaseRow> {
  const row = await deps.store.brokerage.findCase(caseId);
  // Another partner's case is indistinguishable from a missing one.
  if (!row || row.partner_id !== caller.partner.id)
    throw new ApiError('not_found', `Brokerage case "${caseId}" not found`);
  return row;
}

export function getBrokerageCase(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const row = await ownCase(deps, caller, res.locals.pathParams?.case_id ?? '');
    const body: Schemas['BrokerageCaseDetail'] = {
      ...toCase(row, deps.baseUrl(req)),
      timeline: toTimeline(await deps.store.brokerage.timeline(row.case_id)),
    };
    res.json(body);
  };
}

const CASE_FILTERS = ['status', 'from', 'to'] as const;

export function listBrokerageCases(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const list = partnerCursorList(deps, req, `brokerage:${caller.partner.id}`, CASE_FILTERS);
    const after = list.after ? { createdAt: Number(list.after[0]), caseId: String(list.after[1]) } : undefined;
    const rows = await deps.store.brokerage.listCases(
      {
        partnerId: caller.partner.id,
        status: queryString(req, 'status'),
        ...dateWindow(req),
      },
      list.fetch,
      after,
    );
    const { data, next_cursor } = list.page(rows, (r) => [r.created_at, r.case_id]);
    const base = deps.baseUrl(req);
    const body: Schemas['BrokerageCaseList'] = { data: data.map((r) => toCase(r, base)), next_cursor };
    res.json(body);
  };
}
