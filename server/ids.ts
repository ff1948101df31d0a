// Public identifiers: a type prefix and random base62, unguessable and safe in paths.
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes drawn from the CSPRNG a pool at a time, each byte used once, as Node's own
// randomUUID keeps its entropy: a call to the CSPRNG per identifier (a Buffer and a trip into
// OpenSSL) cost 2.7 µs an identifier, several per order (bench/README.md, "Figures behind design
// choices").
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomByte(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++] as number;
}

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    // 248 = 4 * 62: rejecting the top values keeps every character equally likely.
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export const newId = (prefix: string, length = 20) => `${prefix}_${randomBase62(length)}`;
