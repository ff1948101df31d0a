import { ProtocolError } from './errors.ts';

// With the `u` flag a well-formed surrogate pair is one code point, so only unpaired halves
// match. Such a string has no UTF-8 form: encoders silently turn it into U+FFFD, which would
// make two different strings sign alike.
const LONE_SURROGATE = /\p{Surrogate}/u;

export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

export function assertWellFormed(value: string, path: string): void {
  if (hasLoneSurrogate(value)) {
    throw new ProtocolError(
      'validation_error',
      `${path} contains an unpaired UTF-16 surrogate, which has no UTF-8 form`,
      [{ path, message: 'must be valid Unicode text' }],
    );
  }
}

/**
 * Orders strings by Unicode code point, which is also UTF-8 byte order and what every other
 * language's signer sorts by. JavaScript's `<` and the default `sort` compare UTF-16 code
 * units instead, and put U+10000..U+10FFFF before U+E000..U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  // Equal code points occupy equal numbers of units, so one index serves both strings.
  let i = 0;
  while (i < a.length && i < b.length) {
    const ca = a.codePointAt(i) ?? 0;
    const cb = b.codePointAt(i) ?? 0;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
  }
  const restA = a.length - i;
  const restB = b.length - i;
  return restA === restB ? 0 : restA < restB ? -1 : 1;
}
