// An RFC 9083 domain object → the API's WhoisResult: the RDAP members kept under their own
// names (only the parts the contract describes, each checked), plus the convenience members.
// Pure. Registries differ in detail, so unknown members are dropped, not refused; what makes an
// answer unusable (not a domain object, no ldhName) is a RdapFormatError.
import type { components } from '../../generated/public.d.ts';

type Schemas = components['schemas'];
export type WhoisResult = Schemas['WhoisResult'];
type RdapEvent = Schemas['RdapEvent'];
type RdapEntity = Schemas['RdapEntity'];
type RdapNameserver = Schemas['RdapNameserver'];

export class RdapFormatError extends Error {}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const DOMAIN_NAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** RFC 3339 in UTC with `Z`, whole seconds without a fraction; undefined when unparseable. */
export function utc(date: unknown): string | undefined {
  if (typeof date !== 'string') return undefined;
  // Date.parse accepts far more than RFC 3339; require its shape first.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(date)) return undefined;
  const ms = Date.parse(date);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
}

function events(value: unknown): RdapEvent[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((e: unknown) => {
    if (!isObject(e) || typeof e.eventAction !== 'string') return [];
    const eventDate = utc(e.eventDate);
    if (!eventDate) return [];
    return [
      {
        eventAction: e.eventAction,
        eventDate,
        ...(typeof e.eventActor === 'string' ? { eventActor: e.eventActor } : {}),
      },
    ];
  });
}

/** jCard (RFC 7095): `["vcard", [[name, params, type, value...], ...]]`; anything else is dropped. */
function vcard(value: unknown): RdapEntity['vcardArray'] | undefined {
  if (!Array.isArray(value) || value.length !== 2 || value[0] !== 'vcard' || !Array.isArray(value[1])) return undefined;
  const properties = (value[1] as unknown[]).filter(
    (p): p is unknown[] => Array.isArray(p) && typeof p[0] === 'string',
  );
  return ['vcard', properties];
}

function entities(value: unknown): RdapEntity[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((e: unknown) => {
    if (!isObject(e)) return [];
    const card = vcard(e.vcardArray);
    return [
      {
        objectClassName: 'entity' as const,
        ...(typeof e.handle === 'string' ? { handle: e.handle } : {}),
        roles: strings(e.roles),
        ...(card ? { vcardArray: card } : {}),
      },
    ];
  });
}

function nameservers(value: unknown): RdapNameserver[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((n: unknown) =>
    isObject(n) && typeof n.ldhName === 'string' && n.ldhName !== ''
      ? [{ objectClassName: 'nameserver' as const, ldhName: n.ldhName }]
      : [],
  );
}

/** The text value of the first jCard property `name`. */
function cardText(entity: RdapEntity | undefined, name: string): string | undefined {
  const properties = entity?.vcardArray?.[1];
  const property = properties?.find((p) => p[0] === name);
  const text = property?.[3];
  if (typeof text === 'string' && text.trim() !== '') return text.trim();
  // `org` may be structured: ["org", {}, "text", ["Company", "Unit"]].
  if (Array.isArray(text) && typeof text[0] === 'string' && text[0].trim() !== '') return text[0].trim();
  return undefined;
}

// ICANN's RDAP profile writes redacted contact fields with these words rather than omitting them.
const REDACTED = /redacted|withheld for privacy|not disclosed|data protected/i;

function contactName(entity: RdapEntity | undefined): string | null {
  const name = cardText(entity, 'org') ?? cardText(entity, 'fn');
  return name === undefined || REDACTED.test(name) ? null : name;
}

function registrarName(entity: RdapEntity | undefined): string | null {
  return cardText(entity, 'fn') ?? cardText(entity, 'org') ?? null;
}

const when = (list: RdapEvent[], action: string) => list.find((e) => e.eventAction === action)?.eventDate ?? null;

/** Throws RdapFormatError when `json` is not an RFC 9083 domain object with a usable ldhName. */
export function toWhoisResult(json: unknown): WhoisResult {
  if (!isObject(json)) throw new RdapFormatError('the answer is not a JSON object');
  if (json.objectClassName !== 'domain')
    throw new RdapFormatError(`objectClassName is ${JSON.stringify(json.objectClassName)}, not "domain"`);
  if (typeof json.ldhName !== 'string') throw new RdapFormatError('the domain object has no ldhName');
  const domain = json.ldhName.toLowerCase().replace(/\.$/, '');
  if (domain.length > 253 || !DOMAIN_NAME.test(domain))
    throw new RdapFormatError(`ldhName ${JSON.stringify(json.ldhName)} is not a domain name`);
  const evts = events(json.events);
  const ents = entities(json.entities);
  const nss = nameservers(json.nameservers);
  const conformance = strings(json.rdapConformance);
  return {
    ...(conformance.length > 0 ? { rdapConformance: conformance } : {}),
    objectClassName: 'domain',
    ...(typeof json.handle === 'string' ? { handle: json.handle } : {}),
    ldhName: json.ldhName,
    ...(typeof json.unicodeName === 'string' ? { unicodeName: json.unicodeName } : {}),
    status: strings(json.status),
    events: evts,
    entities: ents,
    nameservers: nss,
    domain,
    registrar: registrarName(ents.find((e) => e.roles.includes('registrar'))),
    registrant: contactName(ents.find((e) => e.roles.includes('registrant'))),
    created_at: when(evts, 'registration'),
    updated_at: when(evts, 'last changed'),
    expires_at: when(evts, 'expiration'),
    nameserver_names: nss.map((n) => n.ldhName.toLowerCase().replace(/\.$/, '')),
  };
}
