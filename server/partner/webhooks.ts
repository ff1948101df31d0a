// Webhooks and events (scope `webhook`): registration of the delivery endpoint, where its
// deliveries stand, and the replayable event history.
import type { RequestHandler } from 'express';
import type { components } from '../../generated/partner.d.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { checkResolvedAddresses, checkWebhookUrl, type DestinationOptions } from '../domain/webhook-url.ts';
import { ApiError } from '../http/errors.ts';
import type { WebhookEndpoint } from '../store/events.ts';
import { systemResolve, type Resolve } from '../webhooks/resolve.ts';
import { callerOf, queryInteger, queryString, type PartnerDeps } from './context.ts';

type Schemas = components['schemas'];

export interface WebhookDeps extends PartnerDeps {
  /** Resolves a host name to its addresses (injected so tests need no DNS). */
  resolve?: Resolve;
  /** The deployment's part of the destination rule (SANDBOX_WEBHOOK_LOOPBACK). */
  destinations?: DestinationOptions;
}

/** How many deliveries GET /api/partner/webhooks shows (WebhookStatus.recent_deliveries maxItems). */
export const RECENT_DELIVERIES = 20;

const urlError = (message: string) => new ApiError('validation_error', message, [{ path: '/body/url', message }]);

/**
 * Live: resolves the host name now, so an endpoint cannot be registered pointing into the
 * service's own network; a name that does not resolve and one that resolves inward get the same
 * answer, which names no address. Sandbox names are not judged here (a developer's tunnel or DNS
 * may not be up yet, and an answer that differed by what a name resolves to would make the
 * server's resolver a lookup service for anyone with a sandbox key): every delivery attempt
 * resolves and checks again, and reports only `destination_refused`.
 */
async function checkHostName(
  resolve: Resolve,
  hostname: string,
  environment: 'sandbox' | 'live',
  destinations: DestinationOptions,
): Promise<void> {
  if (environment === 'sandbox') return;
  let addresses: string[];
  try {
    addresses = await resolve(hostname);
  } catch {
    addresses = [];
  }
  const verdict = checkResolvedAddresses(hostname, addresses, environment, destinations);
  if (!verdict.ok) throw urlError(verdict.message);
}

function registrationBody(endpoint: WebhookEndpoint): Schemas['WebhookRegistration'] {
  return {
    url: endpoint.url,
    active: endpoint.active,
    created_at: rfc3339(endpoint.createdAt),
    updated_at: rfc3339(endpoint.updatedAt),
  };
}

export function registerWebhook(deps: WebhookDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const { url, secret } = req.body as Schemas['WebhookRegistrationRequest'];
    const environment = caller.credential.environment;
    const destinations = deps.destinations ?? {};
    const checked = checkWebhookUrl(url, environment, destinations);
    if (!checked.ok) throw urlError(checked.message);
    if (!checked.literalIp)
      await checkHostName(deps.resolve ?? systemResolve, checked.hostname, environment, destinations);
    const endpoint = await deps.store.events.upsertEndpoint(caller.partner.id, checked.href, secret, caller.now);
    res.json(registrationBody(endpoint));
  };
}

/** DELETE /api/partner/webhooks: no more deliveries; the pending ones are given up (the events stay in GET /events). */
export function deactivateWebhook(deps: PartnerDeps): RequestHandler {
  return async (_req, res) => {
    const caller = await callerOf(deps, res);
    const endpoint = await deps.store.events.deactivateEndpoint(
      caller.partner.id,
      caller.now,
      'not delivered: the endpoint was deactivated (DELETE /api/partner/webhooks); the event is in GET /api/partner/v1/events',
    );
    if (!endpoint)
      throw new ApiError('not_found', 'No webhook endpoint is registered; register one with PUT /api/partner/webhooks');
    res.json(registrationBody(endpoint));
  };
}

export function getWebhook(deps: PartnerDeps): RequestHandler {
  return async (_req, res) => {
    const caller = await callerOf(deps, res);
    const endpoint = await deps.store.events.endpoint(caller.partner.id);
    if (!endpoint)
      throw new ApiError('not_found', 'No webhook endpoint is registered; register one with PUT /api/partner/webhooks');
    const deliveries = await deps.store.events.recentDeliveries(caller.partner.id, RECENT_DELIVERIES);
    const body: Schemas['WebhookStatus'] = {
      ...registrationBody(endpoint),
      recent_deliveries: deliveries.map((d) => ({
        event_id: d.eventId,
        event_type: d.type as Schemas['EventType'],
        status: d.status,
        attempts: d.attempts,
        last_error: d.lastError,
        next_attempt_at: d.nextAttemptAt === null ? null : rfc3339(d.nextAttemptAt),
        delivered_at: d.deliveredAt === null ? null : rfc3339(d.deliveredAt),
      })),
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
      if (seq === undefined)
        throw new ApiError('invalid_cursor', `after_id "${afterId}" is not an event of this partner`);
      afterSeq = seq;
    }
    const events = await deps.store.events.list(caller.partner.id, afterSeq, limit);
    const last = events[events.length - 1];
    // A poller never loses its place: an empty page hands its after_id back.
    const next_cursor = last ? last.id : (afterId ?? null);
    const body: Schemas['EventList'] = {
      events: events.map((e) => JSON.parse(e.body) as Schemas['Event']),
      next_cursor,
    };
    res.json(body);
  };
}
