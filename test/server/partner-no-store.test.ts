// Every partner answer carries `Cache-Control: no-store` (the partner document's
// x-security-headers `every-answer`): its answers hold capability URLs (checkout_url and its `pt`
// token) and buyer data, and X-Service-* authentication does not keep a shared cache from storing
// them as Authorization would (RFC 9111 §3.5). Errors and early refusals included; the public
// document's GET /api/partner/v1/openapi.json is that document's and keeps its own headers.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { sessionBody } from './support/checkout.ts';
import { partnerDoc } from './support/contract.ts';
import { domainSource, INVENTORY_SIZE, signedRequest, toReply, type Credential, type Reply } from './support/http.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };
const SCOPES = Object.keys(partnerDoc['x-scope-definitions'] as Record<string, string>);

/** A GET naming another Host (fetch would name the one of the URL). */
function getWithHost(url: string, host: string): Promise<Reply> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    request({ host: u.hostname, port: u.port, path: u.pathname, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (typeof value === 'string') headers.set(name, value);
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers, text, body: undefined });
      });
    })
      .on('error', reject)
      .end();
  });
}

describe('Cache-Control: no-store on every partner answer', () => {
  let h: Harness;
  let cred: Credential;
  const take = domainSource();

  beforeAll(async () => {
    h = await startHarness({ inventorySize: INVENTORY_SIZE });
    cred = await h.mint({ scopes: SCOPES, affiliate: true, rate_limits: HIGH });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is what the partner document declares for every answer', () => {
    const policy = partnerDoc['x-security-headers'] as { 'every-answer': Record<string, string> };
    expect(policy['every-answer']['Cache-Control']).toBe('no-store');
  });

  it('is on successes carrying capabilities or buyer data, on errors and on early refusals', async () => {
    const d = await take(h, cred);
    const answers: Array<[string, Reply]> = [
      [
        'POST /checkout-session (201, checkout_url with its pt token)',
        await signedRequest(h, cred, { method: 'POST', path: `${V1}/checkout-session`, body: sessionBody(d) }),
      ],
      ['GET /orders (200)', await signedRequest(h, cred, { path: `${V1}/orders`, query: 'limit=1' })],
      ['GET /events (200)', await signedRequest(h, cred, { path: `${V1}/events`, query: 'limit=1' })],
      ['GET /links (200)', await signedRequest(h, cred, { path: `${V1}/links` })],
      ['GET /me/sales (200)', await signedRequest(h, cred, { path: `${V1}/me/sales` })],
      ['HEAD /orders (200)', await signedRequest(h, cred, { method: 'HEAD', path: `${V1}/orders` })],
      [
        'POST /checkout-session with a bad body (400)',
        await signedRequest(h, cred, { method: 'POST', path: `${V1}/checkout-session`, body: { domain: 1 } }),
      ],
      ['an unsigned GET /orders (401)', await toReply(await fetch(`${h.baseUrl}${V1}/orders`))],
      ['an unknown partner path (404)', await signedRequest(h, cred, { path: `${V1}/no-such-resource` })],
      [
        'an untrusted Host (421, refused before authentication)',
        await getWithHost(`${h.baseUrl}${V1}/orders`, 'evil.example'),
      ],
    ];
    expect(answers.map(([what, r]) => [what, r.status, r.headers.get('cache-control')])).toEqual(
      answers.map(([what]) => [what, Number(/\((\d{3})/.exec(what)![1]), 'no-store']),
    );
  });

  it('leaves the public document’s GET /api/partner/v1/openapi.json to that document', async () => {
    const r = await fetch(`${h.baseUrl}${V1}/openapi.json`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBeNull();
  });
});
