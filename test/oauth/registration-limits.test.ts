// Every limit the registration endpoint enforces is in its schema, and no other: for each member
// of ClientRegistrationRequest the limits are read from the bundled document, and a value right
// at each limit must be registered (201) while one just past it is refused (400, RFC 7591 shape).
// Lengths are JSON Schema lengths, in code points, so text members are filled with a character
// outside the Basic Multilingual Plane (two UTF-16 units, one code point).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../server/harness.ts';
import { documents, obj } from '../docs/support.ts';
import { scopeOfLength } from './support.ts';

type Schema = Record<string, unknown>;
const schema = obj(obj(obj(documents.public.components).schemas).ClientRegistrationRequest);
const properties = obj(schema.properties) as Record<string, Schema>;
const BASE = { client_name: 'Limits', redirect_uris: ['https://app.example.net/cb'] };

const ASTRAL = '\u{1F600}';
const url = (n: number, prefix = 'https://app.example.net/') => prefix + 'a'.repeat(n - prefix.length);
/** A valid string of `n` code points for a member (or an item of it). */
const STRING_OF_LENGTH: Record<string, (n: number) => string> = {
  scope: scopeOfLength,
  client_name: (n) => ASTRAL.repeat(n),
  software_id: (n) => ASTRAL.repeat(n),
  software_version: (n) => ASTRAL.repeat(n),
  contacts: (n) => ASTRAL.repeat(n),
  redirect_uris: (n) => url(n),
  client_uri: (n) => url(n),
  logo_uri: (n) => url(n),
};
/** A valid array of `n` items for a member (the limit may then be broken by repeating one). */
const ARRAY_OF_LENGTH: Record<string, (n: number) => unknown[]> = {
  redirect_uris: (n) => Array.from({ length: n }, (_, i) => `https://app.example.net/cb${i}`),
  contacts: (n) => Array.from({ length: n }, (_, i) => `ops${i}@example.net`),
  grant_types: (n) => ['authorization_code', 'refresh_token', 'authorization_code'].slice(0, n),
  response_types: (n) => Array.from({ length: n }, () => 'code'),
};

interface Case {
  what: string;
  body: Record<string, unknown>;
  accepted: boolean;
}

/** The boundary cases of every limit the schema states. */
function cases(): Case[] {
  const out: Case[] = [];
  const member = (name: string, value: unknown, accepted: boolean, what: string) =>
    out.push({ what: `${name}: ${what}`, body: { ...BASE, [name]: value }, accepted });
  for (const [name, prop] of Object.entries(properties)) {
    const items = obj(prop.items);
    const text = STRING_OF_LENGTH[name];
    const array = ARRAY_OF_LENGTH[name];
    if (prop.type === 'string' && (typeof prop.maxLength === 'number' || typeof prop.minLength === 'number')) {
      if (!text) throw new Error(`${name} has a length limit: add a value maker to STRING_OF_LENGTH`);
      if (typeof prop.maxLength === 'number') {
        member(name, text(prop.maxLength), true, `${prop.maxLength} code points`);
        member(name, text(prop.maxLength + 1), false, `${prop.maxLength + 1} code points`);
      }
      if (typeof prop.minLength === 'number')
        member(name, text(prop.minLength - 1), false, `${prop.minLength - 1} code points`);
    }
    if (prop.type === 'array') {
      if (typeof prop.maxItems === 'number') {
        if (!array) throw new Error(`${name} has a count limit: add a value maker to ARRAY_OF_LENGTH`);
        member(name, array(prop.maxItems), true, `${prop.maxItems} items`);
        member(name, array(prop.maxItems + 1), false, `${prop.maxItems + 1} items`);
      }
      if (typeof prop.minItems === 'number') member(name, [], false, 'no item');
      if (typeof items.maxLength === 'number') {
        if (!text) throw new Error(`${name} items have a length limit: add a value maker to STRING_OF_LENGTH`);
        member(name, [text(items.maxLength)], true, `an item of ${items.maxLength} code points`);
        member(name, [text(items.maxLength + 1)], false, `an item of ${items.maxLength + 1} code points`);
      }
      if (typeof items.minLength === 'number') member(name, [''], false, 'an empty item');
    }
  }
  return out;
}

describe('registration limits: the schema states exactly what the server enforces', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(() => h.clock.advance(61_000));

  it('states a length or count limit on every member the issue found unbounded', () => {
    for (const name of ['software_id', 'software_version', 'client_uri', 'logo_uri'])
      expect(properties[name]?.maxLength, name).toEqual(expect.any(Number));
    for (const name of ['redirect_uris', 'contacts'])
      expect(obj(properties[name]?.items).maxLength, name).toEqual(expect.any(Number));
    for (const name of ['contacts', 'grant_types', 'response_types'])
      expect(properties[name]?.maxItems, name).toEqual(expect.any(Number));
  });

  it('registers every value at a limit and refuses every value past it', async () => {
    const all = cases();
    expect(all.length).toBeGreaterThan(20);
    for (const c of all) {
      h.clock.advance(61_000);
      const res = await fetch(`${h.baseUrl}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(c.body),
      });
      const body = (await res.json()) as { error?: string };
      if (c.accepted) expect(res.status, `${c.what}: ${JSON.stringify(body)}`).toBe(201);
      else {
        expect(res.status, `${c.what} must be refused`).toBe(400);
        expect(['invalid_client_metadata', 'invalid_redirect_uri'], c.what).toContain(body.error);
      }
    }
  });

  it('holds the pure check to the same limits when no validator runs before it', async () => {
    const { checkClientMetadata } = await import('../../server/oauth/client-metadata.ts');
    for (const c of cases()) expect(checkClientMetadata(c.body).ok, c.what).toBe(c.accepted);
  });
});
