// Reads of the TLD table: prices, requirements, and the order in which TLDs are offered.
import type { components } from '../../generated/public.d.ts';
import { TLD_TABLE, type TldEntry } from './table.ts';

type Schemas = components['schemas'];

export type { TldEntry } from './table.ts';

/** The offered TLDs in the service's order (com first). */
export function offeredTlds(): string[] {
  return [...TLD_TABLE.keys()];
}

export function tldEntry(tld: string): TldEntry | undefined {
  return TLD_TABLE.get(tld);
}

/** All four prices, or only `action`'s (then repeated as `action` and `price`); undefined for an unknown TLD. */
export function tldPrice(tld: string, action?: Schemas['PriceAction']): Schemas['TldPrice'] | undefined {
  const entry = TLD_TABLE.get(tld);
  if (!entry) return undefined;
  const base = { tld, currency: 'USD', term_years: 1 as const };
  if (action === undefined) return { ...base, prices: { ...entry.prices } };
  const price = entry.prices[action];
  return { ...base, prices: { [action]: price }, action, price };
}

export function tldMetadata(tld: string): Schemas['TldMetadata'] | undefined {
  const entry = TLD_TABLE.get(tld);
  return entry ? { tld, ...structuredClone(entry.metadata) } : undefined;
}
