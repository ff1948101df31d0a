import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_BODY_SHA256,
  HEADERS,
  ProtocolError,
  bodySha256Hex,
  canonicalQuery,
  canonicalString,
  sign,
  signatureHex,
  signedHeaders,
  splitRequestTarget,
  verify,
  type SignInput,
} from '../../client/protocol/index.ts';
import { anyText, printableAscii, rawQueryArb } from './arbitraries.ts';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const WITH_BODY = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

const pathArb = fc
  .string({ unit: fc.constantFrom(...'abcXYZ09-._~%/'.split(''), '%C3%A9', '%c3%a9'), maxLength: 12 })
  .map((s) => `/${s}`);
const nonceArb = fc.string({ unit: printableAscii, minLength: 1, maxLength: 128 });
const timestampArb = fc.integer({ min: 0, max: 9_999_999_999 }).map(String);
const secretArb = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 });
const bodyArb = fc.oneof(anyText, fc.uint8Array({ maxLength: 64 }));

const requestArb = fc.record({
  secret: secretArb,
  method: fc.constantFrom(...METHODS),
  path: pathArb,
  query: rawQueryArb.map((q) => q.raw),
  timestamp: timestampArb,
  nonce: nonceArb,
  body: bodyArb,
});
const writeRequestArb = requestArb.chain((r) => fc.constantFrom(...WITH_BODY).map((method) => ({ ...r, method })));

const base: SignInput = {
  secret: 'sk_test_9c1f2b7a4d3e8f60a5b4c3d2e1f0a9b8',
  method: 'POST',
  path: '/api/partner/v1/orders',
  query: '',
  timestamp: '1735689600',
  nonce: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  body: '{"domain":"example.com"}',
};

function bytesOf(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof ProtocolError ? err.code : `not a ProtocolError: ${String(err)}`;
  }
  return undefined;
}

describe('canonicalString', () => {
  it('is six lines: METHOD, PATH, QUERY, TIMESTAMP, NONCE, BODY_SHA256_HEX', () => {
    const lines = canonicalString({ ...base, method: 'post', query: 'b=2&a=1' }).split('\n');
    expect(lines).toEqual([
      'POST',
      '/api/partner/v1/orders',
      'a=1&b=2',
      '1735689600',
      '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      bodySha256Hex('{"domain":"example.com"}'),
    ]);
  });

  it('hashes the empty string for GET and HEAD, and when there is no body', () => {
    for (const method of ['GET', 'get', 'HEAD', 'head']) {
      expect(canonicalString({ ...base, method }).split('\n')[5]).toBe(EMPTY_BODY_SHA256);
    }
    for (const body of [undefined, null, '', new Uint8Array(0)]) {
      expect(canonicalString({ ...base, body }).split('\n')[5]).toBe(EMPTY_BODY_SHA256);
    }
    expect(EMPTY_BODY_SHA256).toBe(bodySha256Hex(''));
  });

  it('keeps the path exactly as given', () => {
    expect(canonicalString({ ...base, path: '/a/caf%c3%a9/%2F' }).split('\n')[1]).toBe('/a/caf%c3%a9/%2F');
  });

  it('refuses input that cannot be written as six unambiguous lines', () => {
    expect(codeOf(() => canonicalString({ ...base, nonce: 'a\nb' }))).toBe('validation_error');
    expect(codeOf(() => canonicalString({ ...base, timestamp: '1\r' }))).toBe('validation_error');
    expect(codeOf(() => canonicalString({ ...base, path: '/a\nGET' }))).toBe('validation_error');
    expect(codeOf(() => canonicalString({ ...base, path: 'api/x' }))).toBe('validation_error');
    expect(codeOf(() => canonicalString({ ...base, path: '/x?a=1' }))).toBe('validation_error');
    expect(codeOf(() => canonicalString({ ...base, method: 'PO ST' }))).toBe('validation_error');
    expect(codeOf(() => canonicalString({ ...base, method: '' }))).toBe('validation_error');
    expect(codeOf(() => canonicalString({ ...base, query: 'a=%G1' }))).toBe('validation_error');
    expect(codeOf(() => canonicalString({ ...base, body: 'x\uD800' }))).toBe('validation_error');
  });
});

describe('splitRequestTarget', () => {
  it('splits at the first ? and keeps the query raw', () => {
    expect(splitRequestTarget('/a/b?x=1&y=%2B?z')).toEqual({ path: '/a/b', query: 'x=1&y=%2B?z' });
    expect(splitRequestTarget('/a')).toEqual({ path: '/a', query: '' });
    expect(splitRequestTarget('/a?')).toEqual({ path: '/a', query: '' });
  });

  it('refuses a target that has no PATH line: the absolute form, a fragment', () => {
    for (const target of ['https://api.example.com/a?x=1', '*', 'a/b', '/a#frag', '/a?x=1#frag', '']) {
      expect(
        codeOf(() => splitRequestTarget(target)),
        target,
      ).toBe('validation_error');
    }
  });
});

describe('sign', () => {
  it('is v1= and 64 lowercase hex digits, the HMAC of the canonical string', () => {
    const header = sign(base);
    expect(header).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(header).toBe(`v1=${signatureHex(base.secret, canonicalString(base))}`);
  });

  it('refuses an empty secret', () => {
    expect(codeOf(() => sign({ ...base, secret: '' }))).toBe('validation_error');
  });

  it('gives the four headers, and Idempotency-Key when asked', () => {
    const headers = signedHeaders({ ...base, keyId: 'pk_test_abc', idempotencyKey: 'idem-1' });
    expect(headers).toEqual({
      [HEADERS.keyId]: 'pk_test_abc',
      [HEADERS.timestamp]: base.timestamp,
      [HEADERS.nonce]: base.nonce,
      [HEADERS.signature]: sign(base),
      [HEADERS.idempotencyKey]: 'idem-1',
    });
    expect(Object.keys(signedHeaders({ ...base, keyId: 'pk_test_abc' }))).toEqual([
      'X-Service-Key-Id',
      'X-Service-Timestamp',
      'X-Service-Nonce',
      'X-Service-Signature',
    ]);
  });

  it('changes when the method changes', () => {
    fc.assert(
      fc.property(requestArb, fc.constantFrom(...METHODS), (r, other) => {
        fc.pre(other !== r.method);
        expect(sign({ ...r, method: other })).not.toBe(sign(r));
      }),
    );
  });

  it('changes when the path changes', () => {
    fc.assert(
      fc.property(requestArb, pathArb, (r, other) => {
        fc.pre(other !== r.path);
        expect(sign({ ...r, path: other })).not.toBe(sign(r));
      }),
    );
  });

  it('changes when the query changes its canonical form', () => {
    fc.assert(
      fc.property(requestArb, rawQueryArb, (r, other) => {
        fc.pre(canonicalQuery(other.raw) !== canonicalQuery(r.query));
        expect(sign({ ...r, query: other.raw })).not.toBe(sign(r));
      }),
    );
  });

  it('does not change when the query is only reordered or respelled', () => {
    expect(sign({ ...base, query: 'b=%7e&a=x+y' })).toBe(sign({ ...base, query: 'a=x%2By&b=~' }));
  });

  it('changes when the timestamp changes', () => {
    fc.assert(
      fc.property(requestArb, timestampArb, (r, other) => {
        fc.pre(other !== r.timestamp);
        expect(sign({ ...r, timestamp: other })).not.toBe(sign(r));
      }),
    );
  });

  it('changes when the nonce changes', () => {
    fc.assert(
      fc.property(requestArb, nonceArb, (r, other) => {
        fc.pre(other !== r.nonce);
        expect(sign({ ...r, nonce: other })).not.toBe(sign(r));
      }),
    );
  });

  it('changes when the body bytes change (methods that carry a body)', () => {
    fc.assert(
      fc.property(writeRequestArb, bodyArb, (r, other) => {
        fc.pre(!sameBytes(bytesOf(other), bytesOf(r.body)));
        expect(sign({ ...r, body: other })).not.toBe(sign(r));
      }),
    );
  });

  it('changes when the secret changes', () => {
    fc.assert(
      fc.property(requestArb, secretArb, (r, other) => {
        fc.pre(other !== r.secret);
        expect(sign({ ...r, secret: other })).not.toBe(sign(r));
      }),
    );
  });
});

describe('verify', () => {
  it('accepts exactly what sign produced', () => {
    fc.assert(fc.property(requestArb, (r) => verify({ ...r, signatureHeader: sign(r) })));
  });

  it('rejects any single-character substitution, deletion or insertion in the header', () => {
    const edit = fc.record({
      kind: fc.constantFrom('substitute', 'delete', 'insert'),
      at: fc.nat(),
      char: fc.constantFrom(...'0123456789abcdefABCDEFv1= xg'.split('')),
    });
    fc.assert(
      fc.property(requestArb, edit, (r, { kind, at, char }) => {
        const header = sign(r);
        const i = at % (header.length + (kind === 'insert' ? 1 : 0));
        const changed =
          kind === 'substitute'
            ? header.slice(0, i) + char + header.slice(i + 1)
            : kind === 'delete'
              ? header.slice(0, i) + header.slice(i + 1)
              : header.slice(0, i) + char + header.slice(i);
        fc.pre(changed !== header);
        expect(verify({ ...r, signatureHeader: changed })).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('answers false, never throws, for headers that are not v1= lowercase hex', () => {
    const good = sign(base);
    const hex = good.slice(3);
    for (const header of [
      undefined,
      null,
      '',
      'v1=',
      hex,
      `V1=${hex}`,
      `v2=${hex}`,
      `v1=${hex.toUpperCase()}`,
      ` ${good}`,
      `${good} `,
      `${good},${good}`,
      `v1=${hex.slice(0, 63)}`,
      `v1=${hex}0`,
      `v1=${Buffer.from(hex, 'hex').toString('base64')}`,
      'v1=é',
    ]) {
      expect(verify({ ...base, signatureHeader: header })).toBe(false);
    }
  });

  it('answers false for a signature made with the key id or another secret, and for an empty secret', () => {
    const byKeyId = sign({ ...base, secret: 'pk_test_51HxExampleKeyId' });
    expect(verify({ ...base, signatureHeader: byKeyId })).toBe(false);
    expect(verify({ ...base, secret: 'sk_test_other', signatureHeader: sign(base) })).toBe(false);
    expect(verify({ ...base, secret: '', signatureHeader: sign(base) })).toBe(false);
  });

  it('answers false when the body changed after signing, and for a re-serialised body', () => {
    const header = sign(base);
    expect(verify({ ...base, body: '{"domain":"example.org"}', signatureHeader: header })).toBe(false);
    expect(verify({ ...base, body: '{ "domain": "example.com" }', signatureHeader: header })).toBe(false);
  });

  it('throws validation_error for a malformed query, which the API rejects before signatures', () => {
    expect(codeOf(() => verify({ ...base, query: 'a=%E1%88', signatureHeader: sign(base) }))).toBe('validation_error');
  });
});
