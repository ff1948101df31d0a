// Operator credential management: POST /credentials, POST /credentials/{key_id}/approve and
// PATCH /credentials/{key_id} (admin contract).
import type { RequestHandler } from 'express';
import type { components } from '../../generated/admin.d.ts';
import { rateLimitClasses } from '../domain/rate-limit.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { ApiError } from '../http/errors.ts';
import { newId, randomBase62 } from '../ids.ts';
import type { PartnerDeps } from '../partner/context.ts';
import type { Credential } from '../store/credentials.ts';

type Schemas = components['schemas'];

/** `partnerDocument`: the partner document, for the default quotas of its rate-limit classes. */
export function credentialHandlers(
  deps: PartnerDeps,
  partnerDocument: Record<string, unknown>,
): Record<'createCredential' | 'approveCredential' | 'updateCredential', RequestHandler> {
  const defaults = Object.fromEntries(
    Object.entries(rateLimitClasses(partnerDocument)).map(([name, c]) => [name, c.quota]),
  ) as Record<'search' | 'write' | 'reporting', number>;

  const credentialResource = (c: Credential): Schemas['Credential'] => ({
    key_id: c.keyId,
    environment: c.environment,
    scopes: c.scopes as Schemas['Scopes'],
    partner_id: c.partnerId,
    affiliate: c.affiliate,
    approved: c.approved,
    rate_limits: { ...defaults, ...c.rateLimits },
    created_at: rfc3339(c.createdAt),
  });

  const findCredential = async (keyId: string) => {
    const credential = await deps.store.credentials.findCredential(keyId);
    if (!credential) throw new ApiError('not_found', `Credential "${keyId}" not found`);
    return credential;
  };

  return {
    async createCredential(req, res) {
      const body = req.body as Schemas['CredentialCreateRequest'];
      const now = deps.clock.now();
      const partnerId = body.partner_id;
      if (partnerId) {
        const partner = await deps.store.credentials.findPartner(partnerId);
        if (!partner) throw new ApiError('not_found', `Partner "${partnerId}" not found`);
        if (partner.environment !== body.environment) {
          throw new ApiError(
            'invalid_state',
            `Partner "${partnerId}" is a ${partner.environment} partner; it cannot hold a ${body.environment} credential`,
          );
        }
      }
      const live = body.environment === 'live';
      const credential: Credential = {
        keyId: `pk_${live ? 'live' : 'test'}_${randomBase62(24)}`,
        partnerId: partnerId ?? newId('ptn', 16),
        environment: body.environment,
        secret: `sk_${live ? 'live' : 'test'}_${randomBase62(40)}`,
        scopes: [...new Set(body.scopes)],
        affiliate: body.affiliate ?? false,
        approved: live ? (body.approved ?? false) : true,
        rateLimits: body.rate_limits ?? {},
        createdAt: now,
      };
      await deps.store.transaction(async (tx) => {
        if (!partnerId)
          await tx.credentials.createPartner({
            id: credential.partnerId,
            environment: credential.environment,
            clockOffsetMs: 0,
            createdAt: now,
          });
        await tx.credentials.createCredential(credential);
      });
      const created: Schemas['NewCredential'] = { ...credentialResource(credential), secret: credential.secret };
      res.status(201).json(created);
    },

    async approveCredential(_req, res) {
      const credential = await findCredential(res.locals.pathParams?.key_id ?? '');
      await deps.store.credentials.updateCredential(credential.keyId, { approved: true });
      res.json(credentialResource({ ...credential, approved: true }));
    },

    async updateCredential(req, res) {
      const credential = await findCredential(res.locals.pathParams?.key_id ?? '');
      const body = req.body as Schemas['CredentialUpdateRequest'];
      const rateLimits = { ...credential.rateLimits };
      for (const [cls, quota] of Object.entries(body.rate_limits ?? {}) as Array<
        [keyof typeof rateLimits, number | null]
      >) {
        if (quota === null) delete rateLimits[cls];
        else rateLimits[cls] = quota;
      }
      const patch = {
        rateLimits,
        ...(body.scopes ? { scopes: [...new Set(body.scopes)] } : {}),
        ...(body.affiliate !== undefined ? { affiliate: body.affiliate } : {}),
      };
      await deps.store.credentials.updateCredential(credential.keyId, patch);
      res.json(credentialResource({ ...credential, ...patch }));
    },
  };
}
