// TLD prices and requirements from the TLD table; an unknown TLD is 404.
import type { components } from '../../../generated/public.d.ts';
import { ApiError } from '../../http/errors.ts';
import { tldMetadata, tldPrice } from '../../tlds/index.ts';

type Schemas = components['schemas'];

const unknown = (tld: string) => new ApiError('not_found', `The TLD .${tld} is not offered`);

export function priceOf(input: { tld: string; action?: Schemas['PriceAction'] | undefined }): Schemas['TldPrice'] {
  const price = tldPrice(input.tld, input.action);
  if (!price) throw unknown(input.tld);
  return price;
}

export function metadataOf(input: { tld: string }): Schemas['TldMetadata'] {
  const metadata = tldMetadata(input.tld);
  if (!metadata) throw unknown(input.tld);
  return metadata;
}
