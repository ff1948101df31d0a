// The module against every known answer in spec/vectors/signing.json.
import { describe, expect, it } from 'vitest';
import {
  EMPTY_BODY_SHA256,
  ProtocolError,
  bodySha256Hex,
  canonicalQuery,
  canonicalString,
  sign,
  signedHeaders,
  verify,
  verifyWebhookSignature,
  webhookSignature,
} from '../../client/protocol/index.ts';
import { loadVectors } from './vectors.ts';

const vectors = loadVectors();
const invalid = vectors.invalid_query ?? [];

describe('vector file', () => {
  it('has the promised shape and coverage', () => {
    expect(Object.keys(vectors).sort()).toEqual([
      'canonical_query',
      'description',
      'invalid_query',
      'signatures',
      'webhooks',
    ]);
    expect(vectors.canonical_query.length).toBeGreaterThanOrEqual(40);
    expect(vectors.webhooks.length).toBeGreaterThanOrEqual(4);
    expect(invalid.length).toBeGreaterThan(0);
    for (const list of [vectors.canonical_query, invalid, vectors.signatures, vectors.webhooks]) {
      const names = list.map((v) => v.name);
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('pins code-point order where UTF-16 order differs', () => {
    // If this ever fails the vectors no longer catch a signer that uses JavaScript's default sort.
    expect(['｡', '😀'].sort()).toEqual(['😀', '｡']); // the order a naive JavaScript signer produces
    const pinned = vectors.canonical_query.filter(
      (v) => v.canonical.includes('%EF%BD%A1') && v.canonical.includes('%F0%9F%98%80'),
    );
    expect(pinned.length).toBeGreaterThanOrEqual(2);
    for (const v of pinned) {
      expect(v.canonical.indexOf('%EF%BD%A1')).toBeLessThan(v.canonical.indexOf('%F0%9F%98%80'));
    }
  });
});

describe('canonical_query vectors', () => {
  it.each(vectors.canonical_query.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(canonicalQuery(v.query)).toBe(v.canonical);
  });
});

describe('invalid_query vectors are rejected with validation_error', () => {
  it.each(invalid.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    let thrown: unknown;
    try {
      canonicalQuery(v.query);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ProtocolError);
    expect((thrown as ProtocolError).code).toBe('validation_error');
    expect((thrown as ProtocolError).details[0]?.path).toBe('/query');
  });
});

describe('signature vectors', () => {
  it.each(vectors.signatures.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const request = {
      method: v.method,
      path: v.path,
      query: v.query,
      timestamp: v.timestamp,
      nonce: v.nonce,
      body: v.body,
    };
    expect(canonicalString(request)).toBe(v.canonical_string);
    const bodyLine = v.canonical_string.split('\n')[5];
    const method = v.method.toUpperCase();
    expect(bodyLine).toBe(method === 'GET' || method === 'HEAD' ? EMPTY_BODY_SHA256 : bodySha256Hex(v.body));
    expect(sign({ ...request, secret: v.secret })).toBe(v.signature);
    // The same request with the body as raw bytes signs identically.
    expect(sign({ ...request, body: new TextEncoder().encode(v.body), secret: v.secret })).toBe(v.signature);
    expect(verify({ ...request, secret: v.secret, signatureHeader: v.signature })).toBe(true);
    expect(signedHeaders({ ...request, secret: v.secret, keyId: 'pk_test_x' })['X-Service-Signature']).toBe(
      v.signature,
    );
  });
});

describe('webhook vectors', () => {
  it.each(vectors.webhooks.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(webhookSignature(v.secret, v.body)).toBe(v.signature);
    expect(webhookSignature(v.secret, new TextEncoder().encode(v.body))).toBe(v.signature);
    expect(verifyWebhookSignature(v.body, v.signature, v.secret)).toBe(true);
    expect(verifyWebhookSignature(v.body, `v1=${v.signature}`, v.secret)).toBe(false);
  });
});
