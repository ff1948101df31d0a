// Domain search: the queried name and the same label on the other offered TLDs, with prices
// masked unless the viewer's token carries `pricing:read`.
import type { components } from '../../../generated/public.d.ts';
import { ApiError } from '../../http/errors.ts';
import type { Store } from '../../store/index.ts';
import { offeredTlds, tldEntry } from '../../tlds/index.ts';
import type { Viewer } from '../context.ts';
import { parseSearchQuery } from './domain-input.ts';
import { PUBLIC_ENVIRONMENT } from './environment.ts';

type Schemas = components['schemas'];
type Result = Schemas['DomainSearchResult'];

export const PRICING_SCOPE = 'pricing:read';
export const MAX_ALTERNATIVES = 10;

export function seesPrices(viewer: Viewer | undefined): boolean {
  return viewer?.scopes.includes(PRICING_SCOPE) ?? false;
}

/** Withholds a price that exists; a taken domain has none to withhold. */
export function masked(result: Result): Result {
  if (result.status === 'taken') return { ...result, price: null, price_masked: false };
  return { ...result, price: null, price_masked: true };
}

/** Listed → the buy-now price; sold (registered, no longer for sale) → taken; absent → the TLD's registration price. */
async function availability(store: Store, label: string, tld: string): Promise<Result> {
  const domain = `${label}.${tld}`;
  const row = await store.inventory.find(PUBLIC_ENVIRONMENT, domain);
  if (row?.status === 'listed')
    return {
      domain,
      tld,
      available: true,
      status: 'listed',
      price: row.price_cents,
      currency: row.currency,
      price_masked: false,
    };
  const register = tldEntry(tld)?.prices.register ?? null;
  if (row || register === null)
    return { domain, tld, available: false, status: 'taken', price: null, currency: 'USD', price_masked: false };
  return {
    domain,
    tld,
    available: true,
    status: 'unregistered',
    price: register,
    currency: 'USD',
    price_masked: false,
  };
}

export async function searchDomain(
  store: Store,
  input: Schemas['DomainSearchRequest'],
  viewer: Viewer | undefined,
): Promise<Schemas['DomainSearchResponse']> {
  const name = parseSearchQuery(input.q);
  if (!tldEntry(name.tld)) {
    throw new ApiError(
      'validation_error',
      `The TLD .${name.tld} is not offered; offered TLDs: ${offeredTlds().join(', ')}`,
      [{ path: '/body/q', message: `TLD .${name.tld} is not offered` }],
    );
  }
  // An IDN label is offered only where the registry accepts IDNs.
  const idn = name.label.startsWith('xn--');
  const siblings = offeredTlds()
    .filter((t) => t !== name.tld && (!idn || tldEntry(t)?.metadata.idn_supported))
    .slice(0, MAX_ALTERNATIVES);
  const [result, ...alternatives] = await Promise.all(
    [name.tld, ...siblings].map((tld) => availability(store, name.label, tld)),
  );
  const show = seesPrices(viewer) ? (r: Result) => r : masked;
  return { query: name.domain, result: show(result as Result), alternatives: alternatives.map(show) };
}
