// The contract between the public reads and their three front doors: the REST handlers, the
// batch entries and the MCP tools all call these, so a read answers the same everywhere.
// Bad input is refused by throwing ApiError (validation_error, not_found, ...).
import type { components } from '../../generated/public.d.ts';
import type { Viewer } from './context.ts';

type Schemas = components['schemas'];

export interface PublicReads {
  /** Availability plus alternate-TLD siblings; prices real only for a viewer with `pricing:read`. */
  searchDomain(
    input: Schemas['DomainSearchRequest'],
    viewer: Viewer | undefined,
  ): Promise<Schemas['DomainSearchResponse']>;
  whoisLookup(input: Schemas['WhoisRequest']): Promise<Schemas['WhoisResult']>;
  tldPrice(input: { tld: string; action?: Schemas['PriceAction'] }): Promise<Schemas['TldPrice']>;
  tldMetadata(input: { tld: string }): Promise<Schemas['TldMetadata']>;
}
