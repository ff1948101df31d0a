// Operator settlement and payouts: POST /settlements/run and POST /payouts (admin contract).
import type { RequestHandler } from 'express';
import type { components } from '../../generated/admin.d.ts';
import { MAX_CENTS } from '../domain/money.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { ApiError } from '../http/errors.ts';
import { newId } from '../ids.ts';
import type { PartnerDeps } from '../partner/context.ts';
import { recordPaidOut } from '../partner/referral-ledger.ts';
import { runSettlement } from '../partner/settlement-run.ts';
import { statementResource } from '../partner/settlements.ts';
import type { PayoutRow } from '../store/settlements.ts';

type Schemas = components['schemas'];

export function settlementHandlers(deps: PartnerDeps): Record<'runSettlement' | 'recordPayout', RequestHandler> {
  return {
    async runSettlement(req, res) {
      const periodEnd = (req.body as Schemas['SettlementRunRequest'] | undefined)?.period_end;
      const written = await runSettlement(deps, {
        periodEnd: periodEnd === undefined ? undefined : Date.parse(periodEnd),
      });
      const body: Schemas['SettlementRun'] = {
        statements: written.map((s) => ({ ...statementResource(s), partner_id: s.partner_id })),
      };
      res.json(body);
    },

    async recordPayout(req, res) {
      const request = req.body as Schemas['PayoutRequest'];
      const partner = await deps.store.credentials.findPartner(request.partner_id);
      if (!partner) throw new ApiError('not_found', `Partner "${request.partner_id}" not found`);
      const now = deps.clock.now();
      const payout: PayoutRow = {
        payout_id: newId('po', 16),
        partner_id: partner.id,
        kind: request.kind,
        amount_cents: request.amount_cents,
        currency: request.currency ?? 'USD',
        paid_at: now + partner.clockOffsetMs,
        created_at: now,
      };
      await deps.store.transaction(async (tx) => {
        // The partner API reports the total paid of a kind (total_paid_cents); it must stay a
        // number JSON carries exactly, so the payout that would take it past 2^53 - 1 is refused.
        const paid = await tx.settlements.payoutTotal(partner.id, payout.kind);
        if (paid + BigInt(payout.amount_cents) > BigInt(MAX_CENTS))
          throw new ApiError(
            'validation_error',
            `Request is invalid: /body/amount_cents would take the partner's total of ${payout.kind} payouts past ${MAX_CENTS} cents (it is ${paid})`,
            [
              {
                path: '/body/amount_cents',
                message: `must keep the partner's total of ${payout.kind} payouts within ${MAX_CENTS}`,
              },
            ],
          );
        await tx.settlements.insertPayout(payout);
        // A referral payout pays pending commission, oldest first (the ledger's paid_out rows).
        if (payout.kind === 'referral_commission')
          await recordPaidOut(tx, partner.id, payout.amount_cents, { payoutId: payout.payout_id, at: payout.paid_at });
      });
      const body: Schemas['Payout'] = {
        payout_id: payout.payout_id,
        partner_id: payout.partner_id,
        amount_cents: payout.amount_cents,
        currency: payout.currency,
        kind: payout.kind,
        paid_at: rfc3339(payout.paid_at),
      };
      res.status(201).json(body);
    },
  };
}
