// The public reads (search, WHOIS, TLD prices and requirements) and the REST handlers of the
// read operations, listings and batch. The reads are what the REST handlers, the batch entries
// and the MCP tools all call.
import type { RequestHandler } from 'express';
import type { components } from '../../generated/public.d.ts';
import { ApiError } from '../http/errors.ts';
import { sandboxRegistrations } from '../rdap/sandbox.ts';
import type { RegistrationSource } from '../rdap/source.ts';
import { batchHandlers } from './batch.ts';
import type { HandlerMap, PublicDeps } from './context.ts';
import { listingsHandler } from './listings.ts';
import type { PublicReads } from './reads-service.ts';
import { searchDomain } from './reads/search.ts';
import { metadataOf, priceOf } from './reads/tld.ts';
import { whoisLookup } from './reads/whois.ts';

type Schemas = components['schemas'];

export interface PublicReadsOptions {
  /**
   * Asked after the sandbox data for names outside the sandbox inventory: the RDAP client
   * (server/rdap/index.ts `rdapFromConfig`) when the deployment turns it on. Absent (the default,
   * and in tests): such names are 404 `not_found`.
   */
  registrations?: RegistrationSource | undefined;
}

export function createPublicReads(deps: PublicDeps, options: PublicReadsOptions = {}): PublicReads {
  const sources = [sandboxRegistrations(deps.store), ...(options.registrations ? [options.registrations] : [])];
  return {
    searchDomain: (input, viewer) => searchDomain(deps.store, input, viewer),
    whoisLookup: (input) => whoisLookup(sources, input),
    tldPrice: async (input) => priceOf(input),
    tldMetadata: async (input) => metadataOf(input),
  };
}

const ACTIONS: readonly Schemas['PriceAction'][] = ['register', 'renew', 'transfer', 'restore'];

/** A query parameter given once, as text. */
function queryText(req: Parameters<RequestHandler>[0], name: string): string | undefined {
  const value: unknown = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw new ApiError('validation_error', `Query is invalid: /query/${name} must be a single value`, [
      { path: `/query/${name}`, message: 'must be a single value' },
    ]);
  return value;
}

export function readHandlers(deps: PublicDeps, reads: PublicReads): HandlerMap {
  return {
    searchDomain: async (req, res) => {
      res.json(await reads.searchDomain(req.body as Schemas['DomainSearchRequest'], res.locals.viewer));
    },
    whoisLookup: async (req, res) => {
      res.json(await reads.whoisLookup(req.body as Schemas['WhoisRequest']));
    },
    getTldPrice: async (req, res) => {
      const tld = queryText(req, 'tld') ?? '';
      const action = queryText(req, 'action');
      if (action !== undefined && !ACTIONS.some((a) => a === action)) {
        throw new ApiError('validation_error', `Query is invalid: /query/action must be one of ${ACTIONS.join(', ')}`, [
          { path: '/query/action', message: `must be one of ${ACTIONS.join(', ')}` },
        ]);
      }
      res.json(await reads.tldPrice({ tld, ...(action ? { action: action as Schemas['PriceAction'] } : {}) }));
    },
    getTldMetadata: async (_req, res) => {
      res.json(await reads.tldMetadata({ tld: res.locals.pathParams?.tld ?? '' }));
    },
    listMarketListings: listingsHandler(deps),
    ...batchHandlers(deps, reads),
  };
}
