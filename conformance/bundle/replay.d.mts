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
export function correlate(
  recorded: unknown,
  fresh: unknown,
  out?: Map<string, string>,
  member?: string,
): Map<string, string>;
export const DEFAULT_ID_PATTERNS: string[];
export const SECRET_MEMBER: RegExp;
export function useIdPatterns(patterns: string[] | undefined): void;
export function idShaped(value: string): boolean;
export function scrub(text: string, secrets: Set<string>): string;
export function substitute(text: string, map: Map<string, string>): string;
export function jsonDiff(
  recorded: unknown,
  fresh: unknown,
  map: Map<string, string>,
  path?: string,
  out?: string[],
  key?: string,
): string[];
