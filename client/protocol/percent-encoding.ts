import { ProtocolError } from './errors.ts';
import { assertWellFormed } from './unicode.ts';

const utf8Encoder = new TextEncoder();
// `fatal` rejects overlongs, encoded surrogates, code points above U+10FFFF, stray continuation
// bytes and truncated sequences. `ignoreBOM` stops the decoder from silently dropping a leading
// U+FEFF, which is a character like any other in a key or value.
const strictUtf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const PERCENT = 0x25;

// Exactly RFC 3986's unreserved set, spelled once: notably narrower than encodeURIComponent,
// which leaves `! ' ( ) *` literal. The whole-string check and the per-byte table both come from it.
const UNRESERVED = 'A-Za-z0-9\\-_.~';
const ALL_UNRESERVED = new RegExp(`^[${UNRESERVED}]*$`);
const ONE_UNRESERVED = new RegExp(`^[${UNRESERVED}]$`);
const UNRESERVED_BYTES: readonly boolean[] = Array.from({ length: 0x80 }, (_, byte) =>
  ONE_UNRESERVED.test(String.fromCharCode(byte)),
);
const isUnreserved = (byte: number): boolean => UNRESERVED_BYTES[byte] === true;

function hexDigitValue(unit: number): number {
  if (unit >= 0x30 && unit <= 0x39) return unit - 0x30;
  if (unit >= 0x41 && unit <= 0x46) return unit - 0x41 + 10;
  if (unit >= 0x61 && unit <= 0x66) return unit - 0x61 + 10;
  return -1; // also for NaN, i.e. reading past the end
}

function malformed(message: string): ProtocolError {
  return new ProtocolError('validation_error', `Malformed query string: ${message}`, [{ path: '/query', message }]);
}

/**
 * Percent-encodes a key or value for the canonical query: the UTF-8 bytes of `value`, with
 * only `A-Z a-z 0-9 - _ . ~` literal and every other byte as `%XX` in uppercase hex.
 */
export function encodeComponent(value: string): string {
  // Most keys and values are unreserved ASCII already, their own encoding: given back as they
  // are, with no UTF-8 bytes made (a well-formed string by construction).
  if (ALL_UNRESERVED.test(value)) return value;
  assertWellFormed(value, '/query');
  let out = '';
  for (const byte of utf8Encoder.encode(value)) {
    out += isUnreserved(byte) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Decodes a raw key or value of the query string. Only `%XX` escapes are decoded (a `+` stays
 * a plus: this is not form encoding); the escaped bytes together with the literal characters
 * must form valid UTF-8. Anything else throws `validation_error`, because a server that
 * guessed would sign a different string from the client.
 */
export function decodeComponent(raw: string): string {
  assertWellFormed(raw, '/query');
  if (!raw.includes('%')) return raw;

  const bytes: number[] = [];
  let i = 0;
  while (i < raw.length) {
    if (raw.charCodeAt(i) === PERCENT) {
      const high = hexDigitValue(raw.charCodeAt(i + 1));
      const low = hexDigitValue(raw.charCodeAt(i + 2));
      if (high < 0 || low < 0) {
        throw malformed(`"%" at offset ${i} of "${raw}" is not followed by two hex digits`);
      }
      bytes.push(high * 16 + low);
      i += 3;
    } else {
      // Literal text is re-encoded so that an escape run and the text after it are checked as
      // one byte sequence: `%C3` followed by a literal character is a truncated sequence.
      let end = raw.indexOf('%', i);
      if (end < 0) end = raw.length;
      for (const byte of utf8Encoder.encode(raw.slice(i, end))) bytes.push(byte);
      i = end;
    }
  }

  try {
    return strictUtf8Decoder.decode(Uint8Array.from(bytes));
  } catch {
    throw malformed(`the percent-escapes of "${raw}" are not valid UTF-8`);
  }
}
