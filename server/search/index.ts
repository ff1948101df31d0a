// The hybrid domain search: what the rest of the server imports. See engine.ts for the index,
// service.ts for how it follows the store, and relevance/README.md for how it is measured.
export {
  createDomainIndex,
  MAX_RESULTS,
  type DomainIndex,
  type SearchHit,
  type SearchListing,
  type SearchMode,
  type SearchOptions,
} from './engine.ts';
export {
  createDomainSearchService,
  type DomainSearchResult,
  type DomainSearchService,
  type ListingChange,
  type ListingSource,
} from './service.ts';
export { domainSearch, storeListingSource } from './store-source.ts';
