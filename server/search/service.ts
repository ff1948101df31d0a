// The search as the server uses it: one index per environment, built from the listed inventory
// on first use and kept current by the inventory's change notices (a sale takes a name out, a
// refund puts it back, replacing the inventory starts over), never rebuilt for a single change.
// Before answering, each name is checked against the store (another instance may have sold it)
// and asked whether another partner holds it, which costs it a little of its score.
import { createDomainIndex, MAX_RESULTS, type DomainIndex, type SearchListing } from './engine.ts';
import { withAvailability } from './rerank.ts';

export type ListingChange =
  { kind: 'sold' | 'listed'; environment: string; domain: string } | { kind: 'replaced'; environment: string };

/** Where the listings come from: the store, in the server (its rows, `L`, as `current` reads them). */
export interface ListingSource<L extends SearchListing = SearchListing> {
  /** Every listed domain of the environment. */
  listed(environment: string): AsyncIterable<SearchListing>;
  /** The domain as it is now; undefined unless it is listed. */
  current(environment: string, domain: string): Promise<L | undefined>;
  /** Calls `listener` after each committed change; returns the unsubscribe function. */
  onChange(listener: (change: ListingChange) => void): () => void;
}

export interface DomainSearchResult {
  domain: string;
  /** False while another partner holds a live quote on it (it is still listed). */
  available: boolean;
  price_cents: number;
  currency: string;
  /** 0 to 1, results sorted by it. */
  score: number;
  category: string;
}

export interface DomainSearchOptions<L extends SearchListing = SearchListing> {
  /** True when another partner holds the listing (as the source just read it); unset means nobody does. */
  isReserved?: (listing: L) => Promise<boolean>;
}

export interface DomainSearchService<L extends SearchListing = SearchListing> {
  search(environment: string, q: string, options?: DomainSearchOptions<L>): Promise<DomainSearchResult[]>;
  /** Builds the environment's index now instead of on its first search. */
  warm(environment: string): Promise<void>;
  /** Stops listening to the source. */
  close(): void;
}

/** Names looked at beyond the five shown, so a reserved or just-sold one can be passed over. */
const HEADROOM = 3;

interface EnvironmentState {
  /** Bumped by every replacement: a build started before one is thrown away. */
  generation: number;
  index?: DomainIndex;
  building?: Promise<DomainIndex>;
  /** Changes that arrived while the index was being built, applied once it is. */
  pending: ListingChange[];
  /** The changes being applied (a relisting reads the row first); searches wait for them. */
  applying: Promise<void>;
}

export function createDomainSearchService<L extends SearchListing>(source: ListingSource<L>): DomainSearchService<L> {
  const states = new Map<string, EnvironmentState>();
  const stateOf = (environment: string): EnvironmentState => {
    let state = states.get(environment);
    if (!state) {
      state = { generation: 0, pending: [], applying: Promise.resolve() };
      states.set(environment, state);
    }
    return state;
  };

  const apply = async (index: DomainIndex, change: ListingChange): Promise<void> => {
    if (change.kind === 'sold') index.remove(change.domain);
    else if (change.kind === 'listed') {
      const listing = await source.current(change.environment, change.domain);
      if (listing) index.upsert(listing);
    }
  };

  const build = async (environment: string, state: EnvironmentState): Promise<DomainIndex> => {
    const generation = state.generation;
    const index = createDomainIndex();
    for await (const listing of source.listed(environment)) index.upsert(listing);
    index.prepare();
    if (state.generation !== generation) return indexFor(environment);
    for (let change = state.pending.shift(); change; change = state.pending.shift()) await apply(index, change);
    if (state.generation !== generation) return indexFor(environment);
    state.index = index;
    state.building = undefined;
    return index;
  };

  const indexFor = (environment: string): Promise<DomainIndex> => {
    const state = stateOf(environment);
    if (state.index) return Promise.resolve(state.index);
    state.building ??= build(environment, state).catch((err: unknown) => {
      state.building = undefined;
      throw err;
    });
    return state.building;
  };

  const unsubscribe = source.onChange((change) => {
    const state = states.get(change.environment);
    if (!state) return;
    if (change.kind === 'replaced') {
      state.generation++;
      state.index = undefined;
      state.building = undefined;
      state.pending = [];
    } else if (state.index) {
      const index = state.index;
      // In order, and a failed read only loses that one change (the answer check still guards sales).
      state.applying = state.applying.then(() => apply(index, change)).catch(() => undefined);
    } else if (state.building) state.pending.push(change);
  });

  return {
    async warm(environment) {
      await indexFor(environment);
    },
    async search(environment, q, options = {}) {
      const index = await indexFor(environment);
      await stateOf(environment).applying;
      const hits = index.search(q, { limit: MAX_RESULTS + HEADROOM });
      const results: DomainSearchResult[] = [];
      for (const hit of hits) {
        const listing = await source.current(environment, hit.listing.domain);
        if (!listing) {
          index.remove(hit.listing.domain);
          continue;
        }
        const available = !(await options.isReserved?.(listing));
        results.push({
          domain: listing.domain,
          available,
          price_cents: listing.price_cents,
          currency: listing.currency,
          score: withAvailability(hit.score, available),
          category: listing.category,
        });
      }
      // Stable: equal scores keep the index's order.
      return results.sort((a, b) => b.score - a.score).slice(0, MAX_RESULTS);
    },
    close: unsubscribe,
  };
}
