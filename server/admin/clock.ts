// A sandbox partner's test clock: POST /partners/{partner_id}/clock/advance (the admin document's
// "Business time" paragraph).
import type { RequestHandler } from 'express';
import type { components } from '../../generated/admin.d.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { ApiError } from '../http/errors.ts';
import type { PartnerDeps } from '../partner/context.ts';

type Schemas = components['schemas'];

export function advancePartnerClock(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const partnerId = res.locals.pathParams?.partner_id ?? '';
    const { seconds } = req.body as Schemas['ClockAdvanceRequest'];
    const partner = await deps.store.credentials.findPartner(partnerId);
    if (!partner) throw new ApiError('not_found', `Partner "${partnerId}" not found`);
    if (partner.environment !== 'sandbox')
      throw new ApiError(
        'invalid_state',
        `Partner "${partnerId}" is a live partner; only sandbox partners have a test clock`,
      );
    const moved = await deps.store.credentials.advanceClock(partnerId, seconds * 1000);
    const body: Schemas['ClockState'] = {
      partner_id: partnerId,
      business_time: rfc3339(deps.clock.now() + (moved?.clockOffsetMs ?? 0)),
    };
    res.json(body);
  };
}
