// Every 401 carries a challenge (RFC 9110 §11.6.1: a 401 MUST send WWW-Authenticate). The partner
// surface names its signing scheme, whatever the failing check, with the value its document
// declares on the 401 responses; the public surface's 401s carry Bearer challenges (RFC 6750).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../server/harness.ts';
import { partnerDoc } from '../server/support/contract.ts';
import { expectError, nowSeconds, signedRequest, toReply, type Credential } from '../server/support/http.ts';
import { documents } from '../docs/support.ts';

const V1 = '/api/partner/v1';
type Json = Record<string, unknown>;

/** The challenge the partner document declares on its 401 responses. */
function declaredChallenge(): string {
  const unauthorized = (partnerDoc.components as Json).responses as Record<string, Json>;
  const header = (unauthorized.Unauthorized?.headers as Record<string, Json>)['WWW-Authenticate'] as Json;
  return ((header.schema as Json).enum as string[])[0] as string;
}

describe('WWW-Authenticate on every 401', () => {
  let h: Harness;
  let cred: Credential;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    cred = await h.mint();
  });
  afterAll(() => h.close());

  it('the partner document declares the signing scheme as its challenge', () => {
    expect(declaredChallenge()).toMatch(/^ServiceSignature realm="partner"$/);
  });

  it('the partner surface sends it with each 401 code, on a path of the document or not', async () => {
    const nonce = randomUUID();
    expect((await signedRequest(h, cred, { path: `${V1}/events`, nonce })).status).toBe(200);
    const cases = {
      missing_credentials: await toReply(await fetch(`${h.baseUrl}${V1}/events`)),
      missing_signature_headers: await signedRequest(h, cred, { path: `${V1}/events`, omit: ['X-Service-Nonce'] }),
      invalid_timestamp: await signedRequest(h, cred, {
        path: `${V1}/events`,
        timestamp: String(nowSeconds(h) - 1000),
      }),
      invalid_signature: await signedRequest(h, cred, { path: `${V1}/events`, signWith: `${cred.secret}x` }),
      replay_detected: await signedRequest(h, cred, { path: `${V1}/events`, nonce }),
      // No operation takes this path; the signature is checked first all the same.
      unknown_path: await toReply(await fetch(`${h.baseUrl}${V1}/no-such-thing`)),
      webhooks: await toReply(await fetch(`${h.baseUrl}/api/partner/webhooks`)),
    };
    for (const [name, reply] of Object.entries(cases)) {
      expect(reply.status, name).toBe(401);
      if (!['unknown_path', 'webhooks'].includes(name)) expectError(reply, name);
      expect(reply.headers.get('www-authenticate'), name).toBe(declaredChallenge());
    }
  });

  it('the partner surface sends no challenge on other errors', async () => {
    const notFound = await signedRequest(h, cred, { path: `${V1}/pricing`, query: 'domain=unlisted-example.com' });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('www-authenticate')).toBeNull();
  });

  it('every public operation that documents a 401 answers it with a Bearer challenge', async () => {
    const json = { 'content-type': 'application/json', authorization: 'Bearer at_not_a_token' };
    const requests: Record<string, () => Promise<Response>> = {
      'POST /api/domain/search': () =>
        fetch(`${h.baseUrl}/api/domain/search`, { method: 'POST', headers: json, body: '{"q":"coffee"}' }),
      'POST /api/batch': () =>
        fetch(`${h.baseUrl}/api/batch`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ requests: [{ method: 'GET', path: '/api/tlds' }] }),
        }),
      'POST /api/domains/bulk/{op}': () =>
        fetch(`${h.baseUrl}/api/domains/bulk/lock`, { method: 'POST', headers: json, body: '{"domains":["a.com"]}' }),
      'GET /api': () => fetch(`${h.baseUrl}/api`),
      'POST /mcp': () =>
        fetch(`${h.baseUrl}/mcp`, {
          method: 'POST',
          headers: { ...json, accept: 'application/json, text/event-stream' },
          body: '{}',
        }),
    };
    // The list above is every public operation with a 401: a new one must be added here.
    const documented: string[] = [];
    for (const [path, item] of Object.entries(documents.public.paths as Record<string, Record<string, Json>>))
      for (const [method, op] of Object.entries(item))
        if ((op.responses as Json | undefined)?.['401']) documented.push(`${method.toUpperCase()} ${path}`);
    expect(Object.keys(requests).sort()).toEqual(documented.sort());
    for (const [name, send] of Object.entries(requests)) {
      const res = await send();
      expect(res.status, name).toBe(401);
      expect(res.headers.get('www-authenticate') ?? '', name).toMatch(/^Bearer /);
    }
  });
});
