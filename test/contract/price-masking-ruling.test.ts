// The public document states the price-masking ruling plainly (probe M1): OAuth changes one thing
// only (seed, document 2), domain search's prices, so listing prices stay public; the document
// must then say that listed prices are public through the listings and that search masking is
// not confidentiality of listed prices, where a reader of either operation looks.
import { describe, expect, it } from 'vitest';
import { documents } from '../docs/support.ts';

type Operation = { description: string };
const pub = documents.public as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { description: string }> };
};
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('the price-masking ruling in the public document', () => {
  it('listings: listed prices are public, without a token, and search masking is not their confidentiality', () => {
    const listings = flat(pub.paths['/api/market/listings']!.get!.description);
    expect(listings).toContain('Listing prices are public');
    expect(listings).toContain('without a token');
    expect(listings).toContain('not confidentiality of listed prices');
  });

  it('search: masking is not confidentiality, and names where the same prices are public', () => {
    for (const text of [
      flat(pub.paths['/api/domain/search']!.post!.description),
      flat(pub.components.schemas.DomainSearchResult!.description),
    ]) {
      expect(text).toContain('Masking is not confidentiality');
      expect(text).toContain('GET `/api/market/listings`');
    }
  });
});
