// The tools' inputs and outputs in zod, mirroring the public document's schemas (the input of
// each tool is the matching batch operation's params, its output the REST answer). Inputs are
// closed like the request bodies; outputs are open like every response body, so fields added to
// an answer never break a client that validates `structuredContent`. test/mcp checks these
// against generated/public.openapi.json so the two cannot drift.
import * as z from 'zod';

// Patterns of spec/shared/schemas.yaml and spec/public/components/schemas.yaml.
const domainName = z
  .string()
  .min(3)
  .max(253)
  .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/)
  .describe(
    'A fully qualified domain name in lowercase ASCII (IDNs in their xn-- A-label form), without a trailing dot.',
  );
const tld = z
  .string()
  .min(2)
  .max(63)
  .regex(/^[a-z][a-z0-9-]{0,61}[a-z0-9]$/)
  .describe('A top-level domain, lowercase, without the leading dot (IDN TLDs in their xn-- form), e.g. "com".');
const priceAction = z.enum(['register', 'renew', 'transfer', 'restore']);
const currency = z.string().regex(/^[A-Z]{3}$/);
const timestamp = z.string().regex(/Z$/);
const cents = z.number().int().min(0);

// ------------------------------------------------------------------ inputs
export const DomainSearchRequest = z.strictObject({
  q: z
    .string()
    .min(1)
    .max(253)
    .describe(
      'A domain ("bestcoffeebeans.com") or a bare label ("bestcoffeebeans", searched as .com). Trimmed and lowercased; Unicode names become their xn-- form.',
    ),
});
export const WhoisRequest = z.strictObject({ domain: domainName });
export const TldPriceParams = z.strictObject({
  tld,
  op: priceAction.optional().describe('One action to price; without it all four are returned.'),
});
export const TldRequirementsParams = z.strictObject({ tld });

// ------------------------------------------------------------------ outputs
const DomainSearchResult = z.looseObject({
  domain: domainName,
  tld,
  available: z.boolean(),
  status: z.enum(['listed', 'unregistered', 'taken']),
  price: cents.nullable(),
  currency,
  price_masked: z.boolean(),
});
export const DomainSearchResponse = z.looseObject({
  query: domainName,
  result: DomainSearchResult,
  alternatives: z.array(DomainSearchResult).max(10),
});

const nullableTime = timestamp.nullable();
export const WhoisResult = z.looseObject({
  objectClassName: z.literal('domain'),
  ldhName: z.string(),
  status: z.array(z.string()),
  events: z.array(z.looseObject({ eventAction: z.string(), eventDate: timestamp })),
  entities: z.array(z.looseObject({ objectClassName: z.literal('entity'), roles: z.array(z.string()) })),
  nameservers: z.array(z.looseObject({ objectClassName: z.literal('nameserver'), ldhName: z.string() })),
  domain: domainName,
  registrar: z.string().nullable(),
  registrant: z.string().nullable(),
  created_at: nullableTime,
  updated_at: nullableTime,
  expires_at: nullableTime,
  nameserver_names: z.array(z.string()),
});

const actionPrice = cents.nullable().optional();
export const TldPrice = z.looseObject({
  tld,
  currency,
  term_years: z.literal(1),
  prices: z.looseObject({ register: actionPrice, renew: actionPrice, transfer: actionPrice, restore: actionPrice }),
  action: priceAction.optional(),
  price: cents.nullable().optional(),
});

export const TldMetadata = z.looseObject({
  tld,
  type: z.enum(['generic', 'country-code', 'sponsored', 'brand']),
  term_years: z.looseObject({ min: z.number().int().min(1), max: z.number().int().min(1).max(10) }),
  organization: z.looseObject({
    required: z.boolean(),
    local_presence_required: z.boolean(),
    eligibility: z.string().nullable(),
  }),
  nameservers: z.looseObject({ min: z.number().int().min(0), max: z.number().int().min(1), must_resolve: z.boolean() }),
  idn_supported: z.boolean(),
  dnssec_supported: z.boolean(),
  privacy_supported: z.boolean(),
});
