// The store as the search service's listing source, and one service per store: the partner
// discovery routes and any other surface that searches share one index per environment.
import type { InventoryRecord } from '../inventory/types.ts';
import type { Store } from '../store/index.ts';
import type { Environment } from '../store/schema.ts';
import { createDomainSearchService, type DomainSearchService, type ListingSource } from './service.ts';

const ENVIRONMENTS: readonly string[] = ['sandbox', 'live'] satisfies readonly Environment[];

function environmentOf(name: string): Environment {
  if (!ENVIRONMENTS.includes(name)) throw new RangeError(`unknown environment ${name}`);
  return name as Environment;
}

export function storeListingSource(store: Store): ListingSource<InventoryRecord> {
  return {
    listed: (environment) => store.inventory.listedRows(environmentOf(environment)),
    async current(environment, domain) {
      const row = await store.inventory.find(environmentOf(environment), domain);
      return row?.status === 'listed' ? row : undefined;
    },
    onChange: (listener) => store.onInventoryChange(listener),
  };
}

const services = new WeakMap<Store, DomainSearchService<InventoryRecord>>();

/** The search service of `store`, created on first use. */
export function domainSearch(store: Store): DomainSearchService<InventoryRecord> {
  let service = services.get(store);
  if (!service) {
    service = createDomainSearchService(storeListingSource(store));
    services.set(store, service);
  }
  return service;
}
