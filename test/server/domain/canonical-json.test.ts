import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_BODY_SHA256 } from '../../../client/protocol/index.ts';
import { canonicalJson, parseJsonBytes, type JsonValue } from '../../../server/domain/canonical-json.ts';
import { fingerprint } from '../../../server/domain/idempotency.ts';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const sha256 = (text: string | Uint8Array): string => createHash('sha256').update(text).digest('hex');

/** The same value with every object's keys inserted in reverse order. */
function reverseKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .reverse()
        .map((k) => [k, reverseKeys(value[k] as JsonValue)]),
    );
  }
  return value;
}

const json = fc.jsonValue() as fc.Arbitrary<JsonValue>;

describe('canonicalJson (RFC 8785)', () => {
  it('matches the example of RFC 8785 section 3.2.2', () => {
    const input =
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
      ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}';
    const expected =
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}';
    expect(canonicalJson(JSON.parse(input))).toBe(expected);
  });

  it('sorts keys as RFC 8785 section 3.2.3 does (UTF-16 code units)', () => {
    const input = { '\u20ac': 1, '\r': 2, '\ufb33': 3, '1': 4, '\ud83d\ude00': 5, '\u0080': 6, '\u00f6': 7 };
    // The RFC lists the sorted keys as \r, 1, \u0080, \u00f6, \u20ac, \ud83d\ude00, \ufb33.
    expect(canonicalJson(input)).toBe('{"\\r":2,"1":4,"\u0080":6,"\u00f6":7,"\u20ac":1,"\ud83d\ude00":5,"\ufb33":3}');
  });

  it('has no insignificant whitespace', () => {
    expect(canonicalJson(JSON.parse('{ "b" : [ 1 , 2 ] ,\n\t"a" : { "y" : null , "x" : "s p" } }'))).toBe(
      '{"a":{"x":"s p","y":null},"b":[1,2]}',
    );
  });

  it('is invariant under key order and whitespace, and keeps the value', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(reverseKeys(value))).toBe(text);
        expect(canonicalJson(JSON.parse(JSON.stringify(value, null, 2)) as JsonValue)).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalJson(JSON.parse(text) as JsonValue)).toBe(text);
      }),
    );
  });

  it('refuses what JSON cannot carry rather than hashing a lossy form', () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ a: Number.POSITIVE_INFINITY })).toThrow(TypeError);
    expect(() => canonicalJson('\ud800')).toThrow(TypeError);
  });
});

describe('parseJsonBytes', () => {
  it('refuses bytes that are not UTF-8 instead of decoding them to U+FFFD', () => {
    expect(parseJsonBytes(Uint8Array.from([0x22, 0xff, 0x22]))).toBeUndefined();
    expect(parseJsonBytes(utf8('"\uFFFD"'))).toBe('\uFFFD');
  });

  it('refuses a byte-order mark (JSON text must not start with one)', () => {
    expect(parseJsonBytes(Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8('{}')]))).toBeUndefined();
  });
});

describe('fingerprint (createOrder: SHA-256 of the canonical JSON)', () => {
  it('is the SHA-256 hex of the sorted, whitespace-free text', () => {
    expect(fingerprint(utf8('{ "expected_price": 250000,\n  "domain": "bestcoffeebeans.com" }'))).toBe(
      sha256('{"domain":"bestcoffeebeans.com","expected_price":250000}'),
    );
  });

  it('matches across whitespace and key order (a retry with other formatting replays)', () => {
    fc.assert(
      fc.property(json, (value) => {
        const compact = fingerprint(utf8(JSON.stringify(value)));
        expect(fingerprint(utf8(JSON.stringify(reverseKeys(value), null, '\t')))).toBe(compact);
        expect(fingerprint(utf8(` \r\n${JSON.stringify(value, null, 3)}\n`))).toBe(compact);
      }),
    );
  });

  const orderBody = fc.record({
    domain: fc.domain(),
    expected_price: fc.nat(),
    currency: fc.constantFrom('USD', 'EUR'),
    buyer: fc.record({ email: fc.emailAddress(), country: fc.constantFrom('US', 'DE') }),
    quote_id: fc.string({ minLength: 16, maxLength: 40 }),
  });

  it('differs when any value differs', () => {
    fc.assert(
      fc.property(orderBody, fc.nat(4), fc.string({ minLength: 1, maxLength: 3 }), (body, which, extra) => {
        const changed = structuredClone(body);
        if (which === 0) changed.domain += extra;
        if (which === 1) changed.expected_price += 1;
        if (which === 2) changed.currency = body.currency === 'USD' ? 'EUR' : 'USD';
        if (which === 3) changed.buyer.country = body.buyer.country === 'US' ? 'DE' : 'US';
        if (which === 4) changed.quote_id += extra;
        expect(fingerprint(utf8(JSON.stringify(changed)))).not.toBe(fingerprint(utf8(JSON.stringify(body))));
      }),
    );
  });

  it('differs when a member is added, removed or wrapped', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json, { minKeys: 1 }), (obj) => {
        const key = Object.keys(obj)[0] as string;
        const base = fingerprint(utf8(JSON.stringify(obj)));
        const { [key]: removed, ...without } = obj;
        expect(fingerprint(utf8(JSON.stringify(without)))).not.toBe(base);
        expect(fingerprint(utf8(JSON.stringify({ ...obj, [key]: [removed] })))).not.toBe(base);
      }),
    );
  });

  it('hashes a body that is not JSON over its raw bytes, so it still compares exactly', () => {
    expect(fingerprint(new Uint8Array())).toBe(EMPTY_BODY_SHA256);
    expect(fingerprint(utf8('{"a":1'))).toBe(sha256('{"a":1'));
    expect(fingerprint(utf8('{"a":1 '))).not.toBe(fingerprint(utf8('{"a":1')));
    const bad1 = Uint8Array.from([0x7b, 0xff, 0x7d]);
    const bad2 = Uint8Array.from([0x7b, 0xfe, 0x7d]);
    expect(fingerprint(bad1)).toBe(sha256(bad1));
    expect(fingerprint(bad1)).not.toBe(fingerprint(bad2));
  });

  it('keeps a BOM and a lone-surrogate escape apart from their look-alikes', () => {
    expect(fingerprint(Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8('{}')]))).not.toBe(fingerprint(utf8('{}')));
    expect(fingerprint(utf8('{"a":"\\ud800"}'))).not.toBe(fingerprint(utf8('{"a":"\\ud801"}')));
    expect(fingerprint(utf8('{"a":"\\ud800"}'))).not.toBe(fingerprint(utf8('{"a":"\uFFFD"}')));
  });
});
