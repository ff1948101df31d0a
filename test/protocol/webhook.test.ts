import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError, verifyWebhookSignature, webhookSignature } from '../../client/protocol/index.ts';
import { anyText } from './arbitraries.ts';

const SECRET = 'whsec_test_5f3c9a1b7d2e4f6a';
const BODY = '{"id":"evt_1","type":"order.recorded","data":{"order":{"domain":"café.example"}}}';

describe('webhookSignature', () => {
  it('is the bare lowercase hex HMAC-SHA256 of the raw body', () => {
    const sig = webhookSignature(SECRET, BODY);
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(sig).toBe(createHmac('sha256', SECRET).update(Buffer.from(BODY, 'utf8')).digest('hex'));
  });

  it('signs the bytes of a Uint8Array view, not its whole backing buffer', () => {
    const backing = Buffer.from(`xxxx${BODY}yyyy`, 'utf8');
    const view = backing.subarray(4, backing.length - 4);
    expect(webhookSignature(SECRET, view)).toBe(webhookSignature(SECRET, BODY));
    const plain = new Uint8Array(backing.buffer, backing.byteOffset + 4, backing.length - 8);
    expect(webhookSignature(SECRET, plain)).toBe(webhookSignature(SECRET, BODY));
  });

  it('refuses an empty secret', () => {
    expect(() => webhookSignature('', BODY)).toThrow(ProtocolError);
  });
});

describe('verifyWebhookSignature', () => {
  it('accepts the signature of the same bytes, as string or bytes', () => {
    fc.assert(
      fc.property(anyText, fc.string({ unit: 'binary', minLength: 1 }), (body, secret) => {
        const sig = webhookSignature(secret, body);
        expect(verifyWebhookSignature(body, sig, secret)).toBe(true);
        expect(verifyWebhookSignature(new TextEncoder().encode(body), sig, secret)).toBe(true);
      }),
    );
  });

  it('rejects a changed body', () => {
    fc.assert(
      fc.property(anyText, anyText, (body, other) => {
        fc.pre(body !== other);
        expect(verifyWebhookSignature(other, webhookSignature(SECRET, body), SECRET)).toBe(false);
      }),
    );
  });

  it('answers false, never throws, for anything malformed', () => {
    const sig = webhookSignature(SECRET, BODY);
    for (const header of [
      undefined,
      null,
      '',
      `v1=${sig}`,
      sig.toUpperCase(),
      sig.slice(1),
      `${sig}0`,
      ` ${sig}`,
      'é'.repeat(32),
    ]) {
      expect(verifyWebhookSignature(BODY, header, SECRET)).toBe(false);
    }
    expect(verifyWebhookSignature(BODY, sig, '')).toBe(false);
    expect(verifyWebhookSignature(BODY, sig, 'another-secret-0001')).toBe(false);
    expect(verifyWebhookSignature('x\uD800', sig, SECRET)).toBe(false);
    expect(verifyWebhookSignature(`${BODY}\n`, sig, SECRET)).toBe(false);
    expect(verifyWebhookSignature(JSON.stringify(JSON.parse(BODY), null, 2), sig, SECRET)).toBe(false);
  });
});
