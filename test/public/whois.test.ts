import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../server/http/errors.ts';
import { createPublicReads } from '../../server/public-api/reads.ts';
import type { PublicReads } from '../../server/public-api/reads-service.ts';
import type { RegistrationSource } from '../../server/rdap/source.ts';
import { RegistrationLookupError } from '../../server/rdap/source.ts';
import type { InventoryRecord } from '../../server/store/inventory.ts';
import type { Store } from '../../server/store/index.ts';
import { assertSchema, depsFor, memoryStore } from './support.ts';

let store: Store;
let reads: PublicReads;
let rows: InventoryRecord[];

beforeAll(async () => {
  store = await memoryStore(120);
  reads = createPublicReads(depsFor(store));
  rows = await store.inventory.listings('sandbox', {}, 'domain', { limit: 40 });
  await store.inventory.markSold('sandbox', rows[0]!.domain);
});
afterAll(() => store.close());

async function notFound(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe('not_found');
  return err as ApiError;
}

describe('whoisLookup (sandbox data)', () => {
  it('answers every inventory domain, listed or sold, in WhoisResult shape with RDAP member names', async () => {
    for (const row of rows) {
      const body = await reads.whoisLookup({ domain: row.domain });
      assertSchema('WhoisResult', body);
      expect(body.objectClassName).toBe('domain');
      expect(body.ldhName.toLowerCase()).toBe(row.domain);
      expect(body.domain).toBe(row.domain);
      expect(body.events.map((e) => e.eventAction)).toEqual(
        expect.arrayContaining(['registration', 'expiration', 'last changed']),
      );
      const registrar = body.entities.find((e) => e.roles.includes('registrar'));
      expect(registrar?.vcardArray?.[0]).toBe('vcard');
      expect(body.registrar).toEqual(expect.any(String));
      expect(body.registrant).toBeNull();
      expect(body.nameserver_names).toEqual(body.nameservers.map((n) => n.ldhName.toLowerCase()));
    }
  });

  it('has dates that make sense against the listing: registered before, changed at, expiring a year or more after', async () => {
    for (const row of rows) {
      const body = await reads.whoisLookup({ domain: row.domain });
      const created = Date.parse(body.created_at!);
      const expires = Date.parse(body.expires_at!);
      expect(created).toBeLessThan(row.listed_at);
      expect(Math.abs(Date.parse(body.updated_at!) - row.listed_at)).toBeLessThan(1000);
      expect(expires - row.listed_at).toBeGreaterThanOrEqual(365 * 24 * 3600 * 1000 - 1000);
      expect(body.events.find((e) => e.eventAction === 'registration')?.eventDate).toBe(body.created_at);
    }
  });

  it('is deterministic: the same row gives the same answer from another store', async () => {
    const again = await memoryStore(120);
    try {
      const other = createPublicReads(depsFor(again));
      const domain = rows[5]!.domain;
      expect(await other.whoisLookup({ domain })).toEqual(await reads.whoisLookup({ domain }));
    } finally {
      await again.close();
    }
  });

  it('normalises case and a trailing dot', async () => {
    const domain = rows[3]!.domain;
    expect((await reads.whoisLookup({ domain: `${domain.toUpperCase()}.` })).domain).toBe(domain);
  });

  it('is 404 not_found for a name no source knows, naming it', async () => {
    const err = await notFound(reads.whoisLookup({ domain: 'never-registered-zq.com' }));
    expect(err.message).toContain('never-registered-zq.com');
  });

  it('asks a configured registration source after the sandbox, and only for names the sandbox lacks', async () => {
    const asked: string[] = [];
    const fake: RegistrationSource = {
      async lookup(domain) {
        asked.push(domain);
        return domain === 'example.org'
          ? {
              objectClassName: 'domain',
              ldhName: 'EXAMPLE.ORG',
              status: [],
              events: [],
              entities: [],
              nameservers: [],
              domain: 'example.org',
              registrar: null,
              registrant: null,
              created_at: null,
              updated_at: null,
              expires_at: null,
              nameserver_names: [],
            }
          : undefined;
      },
    };
    const withRdap = createPublicReads(depsFor(store), { registrations: fake });
    expect((await withRdap.whoisLookup({ domain: 'example.org' })).ldhName).toBe('EXAMPLE.ORG');
    await withRdap.whoisLookup({ domain: rows[1]!.domain });
    await notFound(withRdap.whoisLookup({ domain: 'nobody.net' }));
    expect(asked).toEqual(['example.org', 'nobody.net']);
  });

  it('turns a failing registry into a clear error without internals', async () => {
    const failing: RegistrationSource = {
      lookup: async () => {
        throw new RegistrationLookupError('The RDAP service rdap.example answered HTTP 503 for x.org; try again later');
      },
    };
    const err = await createPublicReads(depsFor(store), { registrations: failing })
      .whoisLookup({ domain: 'x.org' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('internal_error');
    expect((err as ApiError).message).toBe(
      'The RDAP service rdap.example answered HTTP 503 for x.org; try again later',
    );
  });
});
