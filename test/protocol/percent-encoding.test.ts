import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError, decodeComponent, encodeComponent } from '../../client/protocol/index.ts';
import { anyText } from './arbitraries.ts';

const CANONICAL_COMPONENT = /^(?:[A-Za-z0-9\-_.~]|%[0-9A-F]{2})*$/;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof ProtocolError ? err.code : `not a ProtocolError: ${String(err)}`;
  }
  return undefined;
}

describe('encodeComponent', () => {
  it('keeps only the unreserved set literal', () => {
    expect(encodeComponent('AZaz09-_.~')).toBe('AZaz09-_.~');
    expect(encodeComponent("!'()*")).toBe('%21%27%28%29%2A');
    expect(encodeComponent(' +%&=/?#')).toBe('%20%2B%25%26%3D%2F%3F%23');
    expect(encodeComponent('é😀｡')).toBe('%C3%A9%F0%9F%98%80%EF%BD%A1');
    expect(encodeComponent('')).toBe('');
  });

  it('refuses an unpaired surrogate, which has no UTF-8 form', () => {
    expect(codeOf(() => encodeComponent('a\uD800'))).toBe('validation_error');
    expect(codeOf(() => encodeComponent('\uDE00b'))).toBe('validation_error');
  });

  it('output is only unreserved characters and uppercase %XX', () => {
    fc.assert(fc.property(anyText, (text) => CANONICAL_COMPONENT.test(encodeComponent(text))));
  });

  it("equals encodeURIComponent with !'()* escaped as well", () => {
    const reference = (s: string) =>
      encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    fc.assert(fc.property(anyText, (text) => encodeComponent(text) === reference(text)));
  });
});

describe('decodeComponent', () => {
  it('decodes %XX only and keeps + literal', () => {
    expect(decodeComponent('a+b')).toBe('a+b');
    expect(decodeComponent('a%2Bb%20c')).toBe('a+b c');
    expect(decodeComponent('%c3%a9%C3%A9')).toBe('éé');
    expect(decodeComponent('%EF%BB%BFx')).toBe('\uFEFFx');
    expect(decodeComponent('é')).toBe('é');
    expect(decodeComponent('')).toBe('');
  });

  it.each(['%', '%4', '%G1', '%%41', '%C3', '%C3x', '%80', '%C0%AF', '%ED%A0%80', '%F4%90%80%80', '%FF', '\uD800'])(
    'rejects %j with validation_error',
    (raw) => {
      expect(codeOf(() => decodeComponent(raw))).toBe('validation_error');
    },
  );

  it('round-trips: decode(encode(x)) = x for any Unicode text', () => {
    fc.assert(fc.property(anyText, (text) => decodeComponent(encodeComponent(text)) === text));
  });

  it('agrees with decodeURIComponent (strict, +-preserving) on escape-heavy input', () => {
    const token = fc.oneof(
      fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, '0')}`),
      fc.integer({ min: 0, max: 255 }).map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`),
      fc.constantFrom('%', '%4', '%g', 'a', '+', '=', 'é', '😀', '~', ' '),
      // Well-formed multi-byte sequences, so that success paths are exercised too.
      fc.constantFrom('%C3%A9', '%E2%82%AC', '%F0%9F%98%80', '%EF%BD%A1', '%EF%BB%BF', '%F4%8F%BF%BF'),
    );
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 8 }).map((t) => t.join('')),
        (raw) => {
          let expected: string | undefined;
          try {
            expected = decodeURIComponent(raw);
          } catch {
            expected = undefined;
          }
          let actual: string | undefined;
          try {
            actual = decodeComponent(raw);
          } catch (err) {
            if (!(err instanceof ProtocolError) || err.code !== 'validation_error') throw err;
            actual = undefined;
          }
          expect(actual).toBe(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
