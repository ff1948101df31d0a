// POST /api/admin/v1/brokerage/{case_id}/{action}: the operator moves any partner's case through
// the case state machine (the admin contract's x-transitions).
import type { RequestHandler } from 'express';
import type { components } from '../../generated/admin.d.ts';
import { bodyProblem, isBrokerageAction } from '../domain/brokerage.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { ApiError } from '../http/errors.ts';
import { applyCaseMove, toTimeline } from '../partner/brokerage.ts';
import type { PartnerDeps } from '../partner/context.ts';
import type { CaseRow, CaseTimelineRow } from '../store/brokerage.ts';

type Schemas = components['schemas'];

const adminCase = (row: CaseRow, timeline: readonly CaseTimelineRow[]): Schemas['BrokerageCase'] => ({
  case_id: row.case_id,
  partner_id: row.partner_id,
  domain: row.domain,
  tier: row.tier as Schemas['BrokerageTier'],
  status: row.status as Schemas['BrokerageStatus'],
  buyer_email: row.buyer_email,
  budget_cents: row.budget_cents,
  final_price_cents: row.final_price_cents,
  currency: row.currency,
  timeline: toTimeline(timeline),
  created_at: rfc3339(row.created_at),
  updated_at: rfc3339(row.updated_at),
});

export function applyBrokerageAction(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caseId = res.locals.pathParams?.case_id ?? '';
    const action = res.locals.pathParams?.action ?? '';
    if (!isBrokerageAction(action))
      throw new ApiError('validation_error', `Unknown action "${action}"`, [
        { path: '/path/action', message: 'not a brokerage action' },
      ]);
    const body = (req.body ?? {}) as Schemas['BrokerageActionRequest'];
    // A malformed request is refused as such, whatever state the case is in.
    const problem = bodyProblem(action, body.final_price_cents);
    if (problem) throw new ApiError('validation_error', problem.message, [problem]);
    const result = await deps.store.transaction(async (tx) => {
      const row = await tx.brokerage.findCase(caseId);
      if (!row) throw new ApiError('not_found', `Brokerage case "${caseId}" does not exist`);
      const partner = await tx.credentials.findPartner(row.partner_id);
      const now = deps.clock.now();
      const updated = await applyCaseMove(tx, row, action, {
        finalPriceCents: body.final_price_cents,
        note: body.reason ?? null,
        at: now + (partner?.clockOffsetMs ?? 0),
        now,
      });
      return adminCase(updated, await tx.brokerage.timeline(caseId));
    });
    deps.notifyOutbox();
    res.json(result);
  };
}
