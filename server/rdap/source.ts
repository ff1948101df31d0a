// Where WHOIS answers come from. The public reads ask the sources in turn; the first that
// knows the domain answers.
import type { WhoisResult } from './to-whois.ts';

export interface RegistrationSource {
  /** The registration data of `domain` (lowercase LDH); undefined when this source has no record of it. */
  lookup(domain: string): Promise<WhoisResult | undefined>;
}

/**
 * The registry's RDAP service could not be used: unreachable, an error status other than 404,
 * or an answer that is not an RFC 9083 domain object. `message` is safe to show a caller (it
 * names the service and the fault, never internals).
 */
export class RegistrationLookupError extends Error {}
