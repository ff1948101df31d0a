// Sandbox registration data: every domain of the sandbox inventory (listed or sold) is
// registered, with dates, registrar and nameservers derived from its inventory row alone, so
// the same inventory always answers the same. Built as an RFC 9083 domain object and read back
// through the same conversion as a real registry's answer.
import { createHash } from 'node:crypto';
import type { InventoryRecord } from '../inventory/types.ts';
import type { Store } from '../store/index.ts';
import type { RegistrationSource } from './source.ts';
import { toWhoisResult, type WhoisResult } from './to-whois.ts';

const YEAR_MS = 365 * 24 * 3600 * 1000;
export const SANDBOX_REGISTRAR = 'Domain Sales Sandbox Registrar';
const SANDBOX_REGISTRAR_HANDLE = 'SANDBOX-REGISTRAR';

/** A stable number in [0, 2^32) per domain and purpose. */
function hashOf(domain: string, purpose: string): number {
  return createHash('sha256').update(`${purpose}\0${domain}`).digest().readUInt32BE(0);
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The RFC 9083 domain object of an inventory row. */
export function sandboxRdap(row: Pick<InventoryRecord, 'domain' | 'status' | 'listed_at'>): Record<string, unknown> {
  // Registered 1 to 15 years before it was listed, at a whole second.
  const ageMs =
    (1 + (hashOf(row.domain, 'age') % 15)) * YEAR_MS + (hashOf(row.domain, 'offset') % (YEAR_MS / 1000)) * 1000;
  const registered = Math.floor((row.listed_at - ageMs) / 1000) * 1000;
  // Paid up to the first anniversary at least one year after the listing.
  const years = Math.ceil((row.listed_at + YEAR_MS - registered) / YEAR_MS);
  const expires = registered + years * YEAR_MS;
  const sold = row.status === 'sold';
  const ns = sold ? ['ns1.buyer-dns.example', 'ns2.buyer-dns.example'] : ['ns1.parking.example', 'ns2.parking.example'];
  return {
    rdapConformance: ['rdap_level_0', 'icann_rdap_response_profile_1'],
    objectClassName: 'domain',
    handle: `${hashOf(row.domain, 'handle')}_DOMAIN_SANDBOX`,
    ldhName: row.domain.toUpperCase(),
    status: sold ? ['client transfer prohibited', 'active'] : ['active'],
    events: [
      { eventAction: 'registration', eventDate: iso(registered) },
      { eventAction: 'expiration', eventDate: iso(expires) },
      // Listing it on the marketplace is the last change the sandbox knows of.
      { eventAction: 'last changed', eventDate: iso(Math.floor(row.listed_at / 1000) * 1000) },
    ],
    entities: [
      {
        objectClassName: 'entity',
        handle: SANDBOX_REGISTRAR_HANDLE,
        roles: ['registrar'],
        vcardArray: [
          'vcard',
          [
            ['version', {}, 'text', '4.0'],
            ['fn', {}, 'text', SANDBOX_REGISTRAR],
          ],
        ],
      },
      // Registrant contact data is redacted, as ICANN's registration data policy has registries do.
      { objectClassName: 'entity', handle: 'REDACTED-REGISTRANT', roles: ['registrant'] },
    ],
    nameservers: ns.map((n) => ({ objectClassName: 'nameserver', ldhName: n.toUpperCase() })),
  };
}

export function sandboxWhois(row: Pick<InventoryRecord, 'domain' | 'status' | 'listed_at'>): WhoisResult {
  return toWhoisResult(sandboxRdap(row));
}

/** Registration data of the sandbox environment's inventory. */
export function sandboxRegistrations(store: Store): RegistrationSource {
  return {
    async lookup(domain) {
      const row = await store.inventory.find('sandbox', domain);
      return row ? sandboxWhois(row) : undefined;
    },
  };
}
