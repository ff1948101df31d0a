/**
 * Structural limits of request bodies (each document's `x-body-limits`), checked on the raw bytes
 * before anything parses them. Parsing is where a hostile body costs: a deeply nested 1 MiB body
 * or a form of 100,000 fields blocks every other request while JSON.parse or URLSearchParams
 * works through it (bench/README.md, "Figures behind design choices"). These scans are one pass over the bytes that stops at
 * the first limit crossed (a deep body is refused after `maxDepth + 1` bytes), and skip string
 * contents with a native search, so a body within the limits costs about a memory scan.
 *
 * They only count; they do not validate. Malformed JSON within the limits is left to JSON.parse,
 * which refuses it as before. For well-formed JSON the counts are exact.
 */

export interface JsonLimits {
  /** Arrays and objects nested in one another; the body's own top-level container is depth 1. */
  readonly maxDepth: number;
  /** Array elements and object members, at any depth, counted together. */
  readonly maxMembers: number;
}

export interface StructureProblem {
  readonly limit: 'depth' | 'members' | 'fields';
  readonly max: number;
  /** Byte offset where the limit was crossed. */
  readonly offset: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const AMPERSAND = 0x26;

const isWhitespace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** The index of the quote that closes the string whose content starts at `from`; -1 when it never closes. */
function endOfString(bytes: Uint8Array, from: number): number {
  let at = bytes.indexOf(QUOTE, from);
  while (at >= 0) {
    // Escaped when an odd number of backslashes precede it. UTF-8 multi-byte sequences never
    // contain ASCII bytes, so scanning bytes is scanning characters here.
    let backslashes = 0;
    while (at - 1 - backslashes >= from && bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = bytes.indexOf(QUOTE, at + 1);
  }
  return -1;
}

/** Where the JSON text in `bytes` first goes deeper or wider than `limits`; undefined when it stays within them. */
export function jsonStructureProblem(bytes: Uint8Array, limits: JsonLimits): StructureProblem | undefined {
  let depth = 0;
  let members = 0;
  // Just after `[` or `{`: the next value, if any, is the container's first member. Every later
  // member follows a comma.
  let awaitingFirst = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (isWhitespace(b)) continue;
    if (awaitingFirst) {
      awaitingFirst = false;
      if (b !== CLOSE_ARRAY && b !== CLOSE_OBJECT && ++members > limits.maxMembers)
        return { limit: 'members', max: limits.maxMembers, offset: i };
    }
    if (b === QUOTE) {
      const end = endOfString(bytes, i + 1);
      if (end < 0) return undefined; // unterminated: JSON.parse refuses it
      i = end;
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > limits.maxDepth) return { limit: 'depth', max: limits.maxDepth, offset: i };
      awaitingFirst = true;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      depth--;
    } else if (b === COMMA && depth > 0) {
      if (++members > limits.maxMembers) return { limit: 'members', max: limits.maxMembers, offset: i };
    }
  }
  return undefined;
}

/**
 * Where a form-encoded body (`a=1&b=2`) first has more than `maxFields` fields; undefined when it
 * has at most that many. Empty parts (`a=1&&b=2`) are not fields, as URLSearchParams drops them.
 */
export function formStructureProblem(bytes: Uint8Array, maxFields: number): StructureProblem | undefined {
  let fields = 0;
  let start = 0;
  while (start <= bytes.length) {
    let end = bytes.indexOf(AMPERSAND, start);
    if (end < 0) end = bytes.length;
    if (end > start && ++fields > maxFields) return { limit: 'fields', max: maxFields, offset: start };
    start = end + 1;
  }
  return undefined;
}
