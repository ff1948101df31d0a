// Types of replay.mjs (plain JavaScript, so a bundle runs with Node alone) for the kit's tests.
export function encodeComponent(text: string): string;
export function decodeComponent(text: string): string;
export function canonicalQuery(query: string): string;
export function canonicalString(request: {
  method: string;
  path: string;
  query?: string;
  timestamp: string;
  nonce: string;
  body?: string;
}): string;
export function hmacHex(key: string, text: string): string;
export function correlate(recorded: unknown, fresh: unknown, out?: Map<string, string>): Map<string, string>;
export function substitute(text: string, map: Map<string, string>): string;
export function jsonDiff(
  recorded: unknown,
  fresh: unknown,
  map: Map<string, string>,
  path?: string,
  out?: string[],
): string[];
