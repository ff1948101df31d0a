// Webhooks and events (scope `webhook`): registration of the delivery endpoint and the
// replayable event history.
import { lookup } from 'node:dns/promises';
import type { RequestHandler } from 'express';
import type { components } from '../../generated/partner.d.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { checkResolvedAddress, checkWebhookUrl } from '../domain/webhook-url.ts';
import { ApiError } from '../http/errors.ts';
import { callerOf, queryInteger, queryString, type PartnerDeps } from './context.ts';

type Schemas = components['schemas'];

export interface WebhookDeps extends PartnerDeps {
  /** Resolves a host name to its addresses (injected so tests need no DNS). */
  resolve?: (hostname: string) => Promise<string[]>;
}

const systemResolve = async (hostname: string) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export function registerWebhook(deps: WebhookDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const { url, secret } = req.body as Schemas['WebhookRegistrationRequest'];
    const environment = caller.credential.environment;
    const checked = checkWebhookUrl(url, environment);
    if (!checked.ok) throw new ApiError('validation_error', checked.message, [{ path: '/body/url', message: checked.message }]);
    if (!checked.literalIp) {
      // A host name is resolved now, so a live endpoint cannot point into the service's own network.
      let addresses: string[] = [];
      try {
        addresses = await (deps.resolve ?? systemResolve)(checked.hostname);
      } catch {
        if (environment === 'live') throw new ApiError('validation_error', `The host "${checked.hostname}" of url does not resolve`, [{ path: '/body/url', message: 'host does not resolve' }]);
      }
      for (const address of addresses) {
        const verdict = checkResolvedAddress(checked.hostname, address, environment);
        if (!verdict.ok) throw new ApiError('validation_error', verdict.message, [{ path: '/body/url', message: verdict.message }]);
      }
    }
    const endpoint = await deps.store.events.upsertEndpoint(caller.partner.id, checked.href, secret, caller.now);
    const body: Schemas['WebhookRegistration'] = {
      url: endpoint.url,
      active: endpoint.active,
      created_at: rfc3339(endpoint.createdAt),
      updated_at: rfc3339(endpoint.updatedAt),
    };
    res.json(body);
  };
}

export function listEvents(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const afterId = queryString(req, 'after_id');
    const limit = queryInteger(req, 'limit') ?? 100;
    let afterSeq = 0;
    if (afterId !== undefined) {
      const seq = await deps.store.events.seqOf(afterId, caller.partner.id);
      if (seq === undefined) throw new ApiError('invalid_cursor', `after_id "${afterId}" is not an event of this partner`);
      afterSeq = seq;
    }
    const events = await deps.store.events.list(caller.partner.id, afterSeq, limit);
    const last = events[events.length - 1];
    // A poller never loses its place: an empty page hands its after_id back.
    const next_cursor = last ? last.id : (afterId ?? null);
    const body: Schemas['EventList'] = { events: events.map((e) => JSON.parse(e.body) as Schemas['Event']), next_cursor };
    res.json(body);
  };
}
