// What a caller types → the registrable name it means. Pure.
import { domainToASCII } from 'node:url';
import { ApiError } from '../../http/errors.ts';

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const TLD = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
export const DEFAULT_TLD = 'com';

export interface RegistrableName {
  domain: string;
  label: string;
  tld: string;
}

/** Trimmed, lowercased, IDNs to A-labels, a trailing root dot dropped; undefined when not a valid host name. */
export function toAscii(text: string): string | undefined {
  const trimmed = text.trim().toLowerCase().replace(/\.$/, '');
  if (trimmed === '' || /[\s/:@?#\\%]/.test(trimmed)) return undefined;
  const ascii = domainToASCII(trimmed);
  return ascii === '' ? undefined : ascii;
}

/**
 * A search query: a domain (`label.tld`) or a bare label, searched as `<label>.com`. Throws
 * ApiError `validation_error` (at `path`) for anything else, subdomains included.
 */
export function parseSearchQuery(q: string, path = '/body/q'): RegistrableName {
  const ascii = toAscii(q);
  const parts = ascii?.split('.') ?? [];
  const [label, tld = DEFAULT_TLD] = parts;
  if (ascii === undefined || parts.length > 2 || label === undefined || !LABEL.test(label) || !TLD.test(tld)) {
    throw new ApiError('validation_error', `"${q}" is not a domain name (label.tld) or a bare label`, [
      { path, message: 'must be a domain such as bestcoffeebeans.com or a label such as bestcoffeebeans' },
    ]);
  }
  return { domain: `${label}.${tld}`, label, tld };
}
