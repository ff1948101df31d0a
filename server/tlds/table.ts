// The TLDs the service sells: their one-year USD prices and their registration rules. One row
// per TLD, in the service's TLD order (the order of alternate-TLD siblings in a domain search).
// It covers every TLD the generated sandbox inventory uses (server/inventory/generate.ts) plus
// a few common country codes. Prices are the reference deployment's retail list, not a registry's
// wholesale fees; rules follow each registry's published policy in simplified form.
import type { components } from '../../generated/public.d.ts';

type Schemas = components['schemas'];

export type TldPrices = Record<Schemas['PriceAction'], number | null>;

export interface TldEntry {
  prices: TldPrices;
  metadata: Omit<Schemas['TldMetadata'], 'tld'>;
}

/** Cents: register, renew, transfer, restore (null: the registry does not offer the action). */
function prices(register: number, renew: number, transfer: number | null, restore: number | null): TldPrices {
  return { register, renew, transfer, restore };
}

interface Rules {
  type?: Schemas['TldMetadata']['type'];
  terms?: [number, number];
  organization?: Schemas['TldMetadata']['organization'];
  nameservers?: [number, number, boolean];
  idn?: boolean;
  dnssec?: boolean;
  privacy?: boolean;
}

const OPEN = { required: false, local_presence_required: false, eligibility: null };

/** ICANN gTLD defaults (1 to 10 years, 2 to 13 unchecked nameservers), overridden per TLD. */
function rules(r: Rules = {}): TldEntry['metadata'] {
  const [min, max] = r.terms ?? [1, 10];
  const [nsMin, nsMax, mustResolve] = r.nameservers ?? [2, 13, false];
  return {
    type: r.type ?? 'generic',
    term_years: { min, max },
    organization: r.organization ?? OPEN,
    nameservers: { min: nsMin, max: nsMax, must_resolve: mustResolve },
    idn_supported: r.idn ?? true,
    dnssec_supported: r.dnssec ?? true,
    privacy_supported: r.privacy ?? true,
  };
}

const CC = 'country-code' as const;

export const TLD_TABLE: ReadonlyMap<string, TldEntry> = new Map<string, TldEntry>([
  ['com', { prices: prices(1099, 1299, 1099, 8000), metadata: rules() }],
  ['net', { prices: prices(1299, 1499, 1299, 8000), metadata: rules() }],
  ['org', { prices: prices(1099, 1399, 1099, 8000), metadata: rules() }],
  ['io', { prices: prices(3999, 5999, 5999, 12000), metadata: rules({ type: CC }) }],
  ['co', { prices: prices(2999, 3299, 3299, 10000), metadata: rules({ type: CC, terms: [1, 5] }) }],
  // .ai registrations are sold for two years at the least; the price is per year.
  ['ai', { prices: prices(7999, 7999, 7999, 15000), metadata: rules({ type: CC, terms: [2, 10], idn: false }) }],
  ['app', { prices: prices(1499, 1499, 1499, 8000), metadata: rules() }],
  ['dev', { prices: prices(1499, 1499, 1499, 8000), metadata: rules() }],
  ['shop', { prices: prices(2999, 3999, 3999, 8000), metadata: rules() }],
  ['xyz', { prices: prices(199, 1399, 1399, 8000), metadata: rules() }],
  ['tech', { prices: prices(499, 4999, 4999, 8000), metadata: rules() }],
  ['store', { prices: prices(499, 5499, 5499, 8000), metadata: rules() }],
  ['me', { prices: prices(899, 2099, 2099, 10000), metadata: rules({ type: CC }) }],
  [
    'us',
    {
      prices: prices(799, 999, 999, 10000),
      metadata: rules({
        type: CC,
        organization: {
          required: false,
          local_presence_required: true,
          eligibility:
            'The registrant must be a US citizen or resident, or an organization incorporated in or with a bona fide presence in the United States (usTLD Nexus Requirements).',
        },
        idn: false,
        // usTLD policy forbids proxy and privacy registrations.
        privacy: false,
      }),
    },
  ],
  ['info', { prices: prices(299, 2499, 2499, 8000), metadata: rules() }],
  ['online', { prices: prices(199, 3999, 3999, 8000), metadata: rules() }],
  ['biz', { prices: prices(1499, 1999, 1999, 8000), metadata: rules() }],
  [
    'de',
    {
      // DENIC has no redemption fee: a deleted .de goes to transit and is reclaimed by a new registration.
      prices: prices(799, 799, 799, null),
      metadata: rules({
        type: CC,
        terms: [1, 1],
        organization: {
          required: false,
          local_presence_required: true,
          eligibility: 'The registrant or an administrative contact must have a postal address in Germany.',
        },
        nameservers: [2, 5, true],
      }),
    },
  ],
  ['uk', { prices: prices(899, 899, 0, 1500), metadata: rules({ type: CC, idn: false }) }],
  [
    'eu',
    {
      prices: prices(999, 999, 999, null),
      metadata: rules({
        type: CC,
        organization: {
          required: false,
          local_presence_required: true,
          eligibility: 'The registrant must be an EU/EEA citizen, resident or established organization.',
        },
        nameservers: [2, 9, true],
      }),
    },
  ],
  [
    'ca',
    {
      prices: prices(1399, 1399, 1399, 5000),
      metadata: rules({
        type: CC,
        organization: {
          required: false,
          local_presence_required: true,
          eligibility: 'The registrant must meet the Canadian Presence Requirements of CIRA.',
        },
      }),
    },
  ],
  ['nl', { prices: prices(899, 899, 0, null), metadata: rules({ type: CC, terms: [1, 1], idn: false }) }],
]);
