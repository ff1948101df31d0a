// The documents' checkout tokens are what the server issues (probe I8: the public document showed
// `pt: "cs_9X2KQ4M7.eyJ…"`, the server issues `pt_…`). Every `pt` in an example of the public
// document, its CheckoutToken parameter's example, and the `pt` of every `checkout_url` example of
// the partner document is a token sealed by server/domain/checkout.ts with the example key below
// (32 bytes of 7, a key no deployment has, as for the quote ids): readCheckoutToken accepts it,
// and it names the session the example is about.
import { describe, expect, it } from 'vitest';
import { readCheckoutToken } from '../../server/domain/checkout.ts';
import { documents } from '../docs/support.ts';

const EXAMPLE_KEY = new Uint8Array(32).fill(7);

/** Every string under a member named `name`, anywhere in the node. */
function membersNamed(name: string, node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const v of node) membersNamed(name, v, out);
  else if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      if (k === name && typeof v === 'string') out.push(v);
      else membersNamed(name, v, out);
    }
  return out;
}

const read = (token: string) => readCheckoutToken(EXAMPLE_KEY, token);

describe('checkout tokens in the documents', () => {
  it('every pt of the public document is a token the server issues, for session cs_9X2KQ4M7', () => {
    const pub = documents.public as {
      paths: unknown;
      components: { parameters: { CheckoutToken: { example: string } } };
    };
    const tokens = [...membersNamed('pt', pub.paths), pub.components.parameters.CheckoutToken.example];
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    for (const token of new Set(tokens)) {
      expect(read(token), token).toMatchObject({
        ok: true,
        payload: { sessionId: 'cs_9X2KQ4M7', partnerId: 'ptn_8XK2R7M4' },
      });
    }
  });

  it('every checkout_url of the partner document is the server’s form: /checkout?pt=<token of its session>', () => {
    const urls = membersNamed('checkout_url', documents.partner);
    expect(urls.length).toBeGreaterThanOrEqual(1);
    for (const text of urls) {
      const url = new URL(text);
      expect(url.pathname, text).toBe('/checkout');
      expect([...url.searchParams.keys()], text).toEqual(['pt']);
      expect(read(url.searchParams.get('pt')!), text).toMatchObject({
        ok: true,
        payload: { sessionId: 'cs_5TW8NQ3KD2', partnerId: 'ptn_8XK2R7M4' },
      });
    }
  });
});
