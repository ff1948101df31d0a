// The partner document's quote ids are what the server issues (issue 35: the static mock answered
// `qt1.…` ids, the server `qt_…`). Every `quote_id` in every example of the document is a quote
// sealed by server/domain/quote-token.ts, with the example key below (32 bytes of 7, a key no
// deployment has), for the partner and expiry the examples show: readQuote accepts it.
import { describe, expect, it } from 'vitest';
import { readQuote } from '../../server/domain/quote-token.ts';
import { documents } from '../docs/support.ts';

const EXAMPLE_KEY = new Uint8Array(32).fill(7);

function quoteIds(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const v of node) quoteIds(v, out);
  else if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      if (k === 'quote_id' && typeof v === 'string') out.push(v);
      else quoteIds(v, out);
    }
  return out;
}

describe('quote ids in the partner document', () => {
  it('are quotes the server issues: it reads each one back', () => {
    const partner = documents.partner as { components: { schemas: { QuoteId: { examples: string[] } } } };
    const ids = [...quoteIds(documents.partner.paths), ...partner.components.schemas.QuoteId.examples];
    expect(ids.length).toBeGreaterThan(5);
    for (const id of new Set(ids)) {
      const read = readQuote(EXAMPLE_KEY, id, {
        partnerId: 'ptn_8XK2R7M4',
        environment: 'sandbox',
        now: Date.parse('2026-11-22T09:30:00Z'),
      });
      expect(read, id).toMatchObject({
        ok: true,
        payload: { domain: 'bestcoffeebeans.com', priceCents: 250000, expiresAt: Date.parse('2026-11-22T09:40:00Z') },
      });
    }
  });
});
