// Request targets a browser never sends but a socket can: a fragment (`#`) or the absolute form
// (`GET http://host/path`). The partner surface refuses them with 400 `validation_error` before
// it looks the key id up (x-signing `request-target`), so the answer is the same for every key
// id; no surface answers them with a 500, and none takes an authority from the target.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../client/protocol/index.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { nowSeconds, signedRequest, type Credential } from '../server/support/http.ts';
import { rawRequest, type RawAnswer } from './support.ts';

const PATH = '/api/partner/v1/availability';

function expectValidationError(answer: RawAnswer): void {
  expect(answer.status, answer.body).toBe(400);
  expect(JSON.parse(answer.body)).toMatchObject({ code: 'validation_error' });
  expect(answer.headers['x-request-id']).toBeTruthy();
}

describe('request targets with a fragment or in absolute form', () => {
  let h: Harness;
  let cred: Credential;
  let host: string;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    cred = await h.mint({ scopes: ['search'] });
    host = new URL(h.baseUrl).host;
  });
  afterAll(() => h.close());

  // No signer can sign these targets (the protocol has no canonical string for them), so the
  // signature is a well-formed guess: a 401 would mean the target's form went unnoticed.
  const targets = (base: string) => [
    { name: 'a fragment in the path', target: `${PATH}#frag` },
    { name: 'a fragment after the query', target: `${PATH}?domain=a.com#frag` },
    { name: 'the absolute form', target: `${base}${PATH}?domain=a.com` },
  ];

  it.each(['a valid key id', 'an unknown key id'])('answers 400 validation_error to each, with %s', async (which) => {
    for (const t of targets(h.baseUrl)) {
      const keyId = which === 'a valid key id' ? cred.key_id : 'pk_test_unknownunknown0000';
      const signature = [
        `X-Service-Key-Id: ${keyId}`,
        `X-Service-Timestamp: ${nowSeconds(h)}`,
        `X-Service-Nonce: ${randomUUID()}`,
        `X-Service-Signature: v1=${'0'.repeat(64)}`,
      ];
      const answer = await rawRequest(h.baseUrl, [`GET ${t.target} HTTP/1.1`, `Host: ${host}`, ...signature]);
      expectValidationError(answer);
      expect(JSON.parse(answer.body).message, t.name).toMatch(/request target/i);
    }
  });

  it('still answers an ordinary target (the check is not a blanket refusal)', async () => {
    const signed = signedHeaders({
      keyId: cred.key_id,
      secret: cred.secret,
      method: 'GET',
      path: PATH,
      query: 'domain=a.com',
      timestamp: String(nowSeconds(h)),
      nonce: randomUUID(),
    });
    const answer = await rawRequest(h.baseUrl, [
      `GET ${PATH}?domain=a.com HTTP/1.1`,
      `Host: ${host}`,
      ...Object.entries(signed).map(([k, v]) => `${k}: ${v}`),
    ]);
    expect(answer.status, answer.body).toBe(200);
  });

  // Trusted hosts (test/http/trusted-host.test.ts covers Host itself): no other header names the
  // authority of an absolute URL either.
  it('builds no URL from X-Forwarded-Host, X-Forwarded-Proto or Forwarded', async () => {
    const referrer = await h.mint({ scopes: ['refer'], affiliate: true });
    const link = await signedRequest(h, referrer, {
      method: 'POST',
      path: '/api/partner/v1/links',
      body: { type: 'generic' },
    });
    expect(link.status, link.text).toBe(201);
    const forged = [
      'X-Forwarded-Host: evil.example',
      'X-Forwarded-Proto: https',
      'Forwarded: host=evil.example;proto=https',
      'X-Forwarded-For: 203.0.113.9',
    ];
    for (const path of [
      new URL(link.body.url as string).pathname,
      '/.well-known/oauth-authorization-server',
      '/api/v1',
      '/docs.md',
    ]) {
      const answer = await rawRequest(h.baseUrl, [`GET ${path} HTTP/1.1`, `Host: ${host}`, ...forged]);
      expect(answer.status, `${path}: ${answer.body.slice(0, 200)}`).toBeLessThan(400);
      expect(answer.body, path).not.toContain('evil.example');
      expect(answer.headers.location ?? '', path).not.toContain('evil.example');
      expect(`${answer.body}${answer.headers.location ?? ''}`, path).not.toContain(`https://${host}`);
    }
  });

  it.each([
    ['GET', '/docs#x'],
    ['GET', '/api/market/listings#x'],
    ['GET', '/r/abcdef#x'],
    ['GET', '/oauth/authorize#x'],
    ['POST', '/api/domain/search#x'],
    ['GET', '/api/admin/v1/credentials#x'],
    ['GET', 'http://evil.example/api/market/listings'],
    ['GET', 'http://evil.example/.well-known/oauth-authorization-server'],
    ['POST', 'http://evil.example/api/domain/search'],
    ['GET', 'http://evil.example/api/admin/v1/credentials'],
  ])('no other surface answers %s %s with a 500, or with the target authority', async (method, target) => {
    const body = method === 'POST' ? '{"q":"coffee"}' : '';
    const answer = await rawRequest(
      h.baseUrl,
      [`${method} ${target} HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json', 'Authorization: Bearer x'],
      body,
    );
    expect(answer.status, answer.body).toBeGreaterThanOrEqual(200);
    expect(answer.status, answer.body).toBeLessThan(500);
    // An error may quote the target it refuses; nothing may be built from its authority.
    if (answer.status < 400) expect(answer.body).not.toContain('evil.example');
    expect(answer.headers.location ?? '').not.toContain('evil.example');
  });
});
