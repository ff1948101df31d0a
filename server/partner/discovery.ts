// Discovery (scope `search`): search, one domain, availability, pricing.
import type { RequestHandler, Response } from 'express';
import type { components } from '../../generated/partner.d.ts';
import { rfc3339 } from '../domain/rfc3339.ts';
import { UNCATEGORISED } from '../inventory/words.ts';
import { ApiError } from '../http/errors.ts';
import { domainSearch } from '../search/index.ts';
import type { Credential } from '../store/credentials.ts';
import type { ReadMark } from '../store/row-cache.ts';
import { callerOf, queryString, type PartnerDeps } from './context.ts';

type Schemas = components['schemas'];
/** The store says `uncategorised`; the contract says null. */
const categoryOrNull = (category: string) => (category === UNCATEGORISED ? null : category);

/** Listed, unsold and not held by another partner's live quote (`now`: real time, ms). */
async function availability(
  deps: PartnerDeps,
  viewer: { environment: Credential['environment']; partnerId: string; now: number; since: ReadMark | undefined },
  domain: string,
) {
  const listing = await deps.store.inventory.find(viewer.environment, domain, viewer.since);
  if (!listing || listing.status !== 'listed') return { listing: undefined, available: false };
  const reserved = await deps.store.orders.reservationOn(listing, viewer.partnerId, viewer.now);
  return { listing, available: reserved === undefined };
}

/**
 * The caller as availability needs it. Its partner id is on the credential, so the hottest read
 * of the API does without callerOf's partner lookup (whose test clock it does not use).
 */
function viewerOf(deps: PartnerDeps, res: Response) {
  const credential = res.locals.credential;
  if (!credential) throw new Error('route reached without an authenticated credential');
  return {
    environment: credential.environment,
    partnerId: credential.partnerId,
    now: deps.clock.now(),
    since: res.locals.readMark,
  };
}

export function searchDomains(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const q = queryString(req, 'q') ?? '';
    if (q.trim() === '')
      throw new ApiError('validation_error', 'q must contain at least one non-space character', [
        { path: '/query/q', message: 'must not be blank' },
      ]);
    const environment = caller.credential.environment;
    const hits = await domainSearch(deps.store).search(environment, q, {
      isReserved: async (listing) =>
        (await deps.store.orders.reservationOn(listing, caller.partner.id, caller.now)) !== undefined,
    });
    const results: Schemas['DomainSearchHit'][] = hits.map((hit) => ({
      ...hit,
      category: categoryOrNull(hit.category),
    }));
    const body: Schemas['DomainSearchResults'] = { q, results };
    res.json(body);
  };
}

export function getDomain(deps: PartnerDeps): RequestHandler {
  return async (_req, res) => {
    const name = res.locals.pathParams?.name ?? '';
    const { listing, available } = await availability(deps, viewerOf(deps, res), name);
    if (!listing) throw new ApiError('not_found', `Domain "${name}" is not listed`);
    const body: Schemas['DomainDetail'] = {
      domain: listing.domain,
      available,
      price_cents: listing.price_cents,
      currency: listing.currency,
      metadata: {
        label: listing.label,
        tld: listing.tld,
        length: listing.label.length,
        idn: listing.domain.split('.').some((part) => part.startsWith('xn--')),
        registered_at: null,
        listed_at: rfc3339(listing.listed_at),
        category: categoryOrNull(listing.category),
        keywords: listing.keywords,
      },
    };
    res.json(body);
  };
}

export function getAvailability(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const domain = queryString(req, 'domain') ?? '';
    const { listing, available } = await availability(deps, viewerOf(deps, res), domain);
    const body: Schemas['Availability'] = {
      domain,
      available,
      price_cents: listing ? listing.price_cents : null,
      currency: listing ? listing.currency : null,
    };
    res.json(body);
  };
}

export function getPricing(deps: PartnerDeps): RequestHandler {
  return async (req, res) => {
    const caller = await callerOf(deps, res);
    const domain = queryString(req, 'domain') ?? '';
    const listing = await deps.store.inventory.find(caller.credential.environment, domain, res.locals.readMark);
    if (!listing || listing.status !== 'listed') throw new ApiError('not_found', `Domain "${domain}" is not listed`);
    const body: Schemas['Pricing'] = {
      domain,
      price_cents: listing.price_cents,
      floor_cents: listing.floor_cents,
      currency: listing.currency,
    };
    res.json(body);
  };
}
