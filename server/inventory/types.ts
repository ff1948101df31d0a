// The shapes an inventory row takes between the generator, the importer and the store.
import type { ListingReservation } from '../domain/quote-reservation.ts';
import type { Environment } from '../store/schema.ts';

/** One listing to be written; the store adds the environment. */
export interface InventoryRow {
  domain: string;
  /** The name left of the TLD, e.g. `bestcoffeebeans`. */
  label: string;
  /** Without a leading dot, e.g. `com` or `co.uk`. */
  tld: string;
  price_cents: number;
  /** Lowest acceptable price, never above `price_cents`. */
  floor_cents: number;
  currency: string;
  /** Kebab-case category slug, or `uncategorised`. */
  category: string;
  /** The words the label is made of, most significant first. */
  keywords: string[];
  /** Epoch milliseconds. */
  listed_at: number;
  /** Defaults to `listed`. */
  status?: InventoryStatus;
}

export type InventoryStatus = 'listed' | 'sold';

/** A row as read back from the store. */
export interface InventoryRecord extends InventoryRow {
  environment: Environment;
  status: InventoryStatus;
  /** The latest reservation a quote wrote on the row (x-quote-reservation), live or ended; null when none. */
  reservation: ListingReservation | null;
}

/** A search result: the record and its relevance, from 0 to 1, highest first. */
export interface InventorySearchHit extends InventoryRecord {
  score: number;
}
