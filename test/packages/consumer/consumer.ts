// A partner's program, written only against the installed packages: test/packages/outside.test.ts
// copies this folder into an empty project that installed the packed tarballs, type-checks it with
// that project's own TypeScript and runs it against the installed sandbox. (Not part of the
// repository's typecheck: '@domain-sales/client' resolves only once the packages are installed.)
//   node consumer.js BASE_URL ADMIN_TOKEN  → one JSON line: what each step saw
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createPartnerClient,
  createPublicClient,
  verifyWebhook,
  webhookHandler,
  type WebhookEvent,
} from '@domain-sales/client';
import { webhookSignature } from '@domain-sales/client/protocol';
import type { components } from '@domain-sales/contract/partner';
import partnerDocument from '@domain-sales/contract/partner.openapi.json' with { type: 'json' };
import vectors from '@domain-sales/contract/vectors/signing.json' with { type: 'json' };

type Order = components['schemas']['Order'];

const [baseUrl, adminToken] = process.argv.slice(2);
if (!baseUrl || !adminToken) throw new Error('usage: node consumer.js BASE_URL ADMIN_TOKEN');

// A sandbox credential from the operator API.
const minted = await fetch(`${baseUrl}/api/admin/v1/credentials`, {
  method: 'POST',
  headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
  body: JSON.stringify({ environment: 'sandbox', scopes: ['search', 'buy', 'webhook'] }),
});
const credential = (await minted.json()) as { key_id: string; secret: string };
if (minted.status !== 201) throw new Error(`minting failed: ${minted.status} ${JSON.stringify(credential)}`);

// The receiver a partner mounts (here on node:http; Express takes the same handler).
const webhookSecret = 'whsec_outside_the_repository';
const received: WebhookEvent[] = [];
// The handler never rejects, so node:http takes it as it is.
const receiver = createServer(webhookHandler({ secret: webhookSecret, onEvent: (event) => void received.push(event) }));
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;

const partner = createPartnerClient({ baseUrl, keyId: credential.key_id, secret: credential.secret });
const registered = await partner.PUT('/api/partner/webhooks', { body: { url: receiverUrl, secret: webhookSecret } });

const search = await partner.GET('/api/partner/v1/domains/search', { params: { query: { q: 'coffee' } } });
const hit = search.data?.results.find((r) => r.available);
if (!hit)
  throw new Error(`no available domain in the search: ${search.response.status} ${JSON.stringify(search.error)}`);
const availability = await partner.GET('/api/partner/v1/availability', { params: { query: { domain: hit.domain } } });
const quote = await partner.POST('/api/partner/v1/quotes', { body: { domain: hit.domain } });
if (!quote.data) throw new Error(`quote failed: ${quote.response.status} ${JSON.stringify(quote.error)}`);
const placed = await partner.POST('/api/partner/v1/orders', {
  body: {
    domain: hit.domain,
    expected_price: quote.data.price_cents,
    currency: quote.data.currency,
    quote_id: quote.data.quote_id,
    buyer: { email: 'jane.doe@example.org' },
  },
});
const order: Order | undefined = placed.data;

// The delivery of the order's event, verified by webhookHandler (it answers 401 otherwise).
const deadline = Date.now() + 20_000;
while (!received.some((e) => JSON.stringify(e).includes(hit.domain)) && Date.now() < deadline)
  await new Promise((r) => setTimeout(r, 100));
receiver.close();

// verifyWebhook by hand: a signature made with the secret verifies; a changed body does not.
const body = JSON.stringify({
  id: 'evt_outside',
  type: 'order.created',
  created_at: new Date().toISOString(),
  data: {},
});
const header = webhookSignature(webhookSecret, body);

const pub = createPublicClient({ baseUrl });
const listings = await pub.GET('/api/market/listings', { params: { query: { limit: 5 } } });

console.log(
  JSON.stringify({
    documentVersion: partnerDocument.info.version,
    vectorCount: Array.isArray(vectors) ? vectors.length : Object.keys(vectors).length,
    registered: registered.response.status,
    availability: availability.response.status,
    orderStatus: placed.response.status,
    orderDomain: order?.domain,
    delivered: received.filter((e) => JSON.stringify(e).includes(hit.domain)).map((e) => e.type),
    verifiedGood: verifyWebhook(body, header, webhookSecret)?.id ?? null,
    verifiedTampered: verifyWebhook(body.replace('order.created', 'order.cancelled'), header, webhookSecret),
    publicListings: listings.response.status,
  }),
);
