import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../server/http/errors.ts';
import { runBatch, type BatchContext } from '../../server/public-api/batch.ts';
import { batchCatalogue } from '../../server/public-api/batch-catalogue.ts';
import type { PublicCalls } from '../../server/public-api/context.ts';
import { createPublicReads } from '../../server/public-api/reads.ts';
import type { PublicReads } from '../../server/public-api/reads-service.ts';
import type { Store } from '../../server/store/index.ts';
import { assertSchema, depsFor, memoryStore, publicDoc, viewer } from './support.ts';

let store: Store;
let reads: PublicReads;
let listedDomain: string;
let listedPrice: number;

beforeAll(async () => {
  store = await memoryStore(200);
  reads = createPublicReads(depsFor(store));
  const [row] = await store.inventory.listings('sandbox', { tld: 'com' }, 'domain', { limit: 1 });
  listedDomain = row!.domain;
  listedPrice = row!.price_cents;
});
afterAll(() => store.close());

/** A quota of `remaining` further calls, counting what is asked. */
function quota(remaining: number): PublicCalls & { asked: number } {
  const calls = {
    asked: 0,
    async take() {
      calls.asked++;
      if (remaining <= 0) return false;
      remaining--;
      return true;
    },
  };
  return calls;
}

function ctx(over: Partial<BatchContext> = {}): BatchContext {
  return { viewer: undefined, calls: undefined, requestId: 'req_test', log: () => {}, ...over };
}

const op = (id: string, name: string, params: Record<string, unknown>) => ({ id, op: name, params });

async function wholeRequestError(body: unknown): Promise<ApiError> {
  const err = await runBatch(reads, body, ctx()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe('validation_error');
  return err as ApiError;
}

describe('batch catalogue', () => {
  it('lists the four operations with the public document schemas of their params', () => {
    const catalogue = batchCatalogue();
    assertSchema('BatchCatalogue', catalogue);
    expect(catalogue.max_operations).toBe(20);
    expect(catalogue.operations.map((o) => o.op)).toEqual([
      'search_domain',
      'tld_registration_price',
      'whois_lookup',
      'tld_requirements',
    ]);
    const schemas = publicDoc.components.schemas as Record<
      string,
      { required?: string[]; properties?: Record<string, unknown> }
    >;
    const sources = {
      search_domain: 'DomainSearchRequest',
      tld_registration_price: 'TldPriceParams',
      whois_lookup: 'WhoisRequest',
      tld_requirements: 'TldRequirementsParams',
    };
    for (const entry of catalogue.operations) {
      const source = schemas[sources[entry.op as keyof typeof sources]]!;
      const params = entry.params as {
        required?: string[];
        properties?: Record<string, unknown>;
        additionalProperties?: boolean;
      };
      expect(params.required).toEqual(source.required);
      expect(Object.keys(params.properties ?? {})).toEqual(Object.keys(source.properties ?? {}));
      expect(params.additionalProperties).toBe(false);
      expect(JSON.stringify(params)).not.toContain('$ref');
      expect(entry.mcp_tool).toBe(entry.op);
    }
  });

  it('names the single call each operation goes to, as paths of the public document', () => {
    for (const entry of batchCatalogue().operations) {
      const [method, path] = entry.equivalent.split(' ') as [string, string];
      expect(publicDoc.paths[path]?.[method.toLowerCase()], entry.equivalent).toBeDefined();
    }
  });
});

describe('runBatch', () => {
  it('answers each entry as its single call does, in request order', async () => {
    const body = await runBatch(
      reads,
      {
        operations: [
          op('s1', 'search_domain', { q: listedDomain }),
          op('p1', 'tld_registration_price', { tld: 'io', op: 'renew' }),
          op('w1', 'whois_lookup', { domain: listedDomain }),
          op('m1', 'tld_requirements', { tld: 'de' }),
          op('p2', 'tld_registration_price', { tld: 'com' }),
        ],
      },
      ctx(),
    );
    assertSchema('BatchResponse', body);
    expect(body.results.map((r) => [r.id, r.status])).toEqual([
      ['s1', 200],
      ['p1', 200],
      ['w1', 200],
      ['m1', 200],
      ['p2', 200],
    ]);
    expect(body.results[0]!.body).toEqual(await reads.searchDomain({ q: listedDomain }, undefined));
    expect(body.results[1]!.body).toEqual(await reads.tldPrice({ tld: 'io', action: 'renew' }));
    expect(body.results[2]!.body).toEqual(await reads.whoisLookup({ domain: listedDomain }));
    expect(body.results[3]!.body).toEqual(await reads.tldMetadata({ tld: 'de' }));
    expect(body.results[4]!.body).toEqual(await reads.tldPrice({ tld: 'com' }));
  });

  it('gives a bad entry its own 400 or 404 without failing the others', async () => {
    const body = await runBatch(
      reads,
      {
        operations: [
          op('ok', 'tld_requirements', { tld: 'io' }),
          op('unknown', 'domain_appraisal', { domain: listedDomain }),
          op('missing', 'search_domain', {}),
          op('extra', 'whois_lookup', { domain: listedDomain, verbose: true }),
          op('badtld', 'tld_registration_price', { tld: '.COM', op: 'sell' }),
          op('nf', 'whois_lookup', { domain: 'never-registered-zq.com' }),
          op('notld', 'tld_requirements', { tld: 'zz' }),
          op('badq', 'search_domain', { q: 'www.two.levels.com' }),
          op('ok2', 'search_domain', { q: listedDomain }),
        ],
      },
      ctx(),
    );
    assertSchema('BatchResponse', body);
    const by = Object.fromEntries(body.results.map((r) => [r.id, r]));
    expect(by.ok!.status).toBe(200);
    expect(by.ok2!.status).toBe(200);
    expect(by.unknown).toMatchObject({
      op: 'domain_appraisal',
      status: 400,
      body: { code: 'validation_error', request_id: 'req_test', details: [{ path: '/body/operations/1/op' }] },
    });
    expect((by.unknown!.body as { message: string }).message).toContain('domain_appraisal');
    expect(by.missing).toMatchObject({
      status: 400,
      body: {
        code: 'validation_error',
        details: [{ path: '/body/operations/2/params', message: expect.stringContaining("'q'") }],
      },
    });
    expect(by.extra).toMatchObject({
      status: 400,
      body: { details: [{ path: '/body/operations/3/params', message: expect.stringContaining('verbose') }] },
    });
    const badtld = (by.badtld!.body as { details: { path: string }[] }).details.map((d) => d.path);
    expect(badtld).toEqual(expect.arrayContaining(['/body/operations/4/params/tld', '/body/operations/4/params/op']));
    expect(by.nf).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(by.notld).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(by.badq).toMatchObject({ status: 400, body: { code: 'validation_error' } });
  });

  it('unmasks search_domain prices for the request viewer with pricing:read, and only then', async () => {
    const batch = { operations: [op('s', 'search_domain', { q: listedDomain })] };
    const masked = await runBatch(reads, batch, ctx());
    const real = await runBatch(reads, batch, ctx({ viewer: viewer(['pricing:read']) }));
    expect(masked.results[0]!.body).toMatchObject({ result: { price: null, price_masked: true } });
    expect(real.results[0]!.body).toMatchObject({ result: { price: listedPrice, price_masked: false } });
  });

  it('counts each entry as one call, the first covered by the request itself', async () => {
    const calls = quota(100);
    await runBatch(
      reads,
      { operations: Array.from({ length: 7 }, (_, i) => op(`e${i}`, 'tld_requirements', { tld: 'com' })) },
      ctx({ calls }),
    );
    expect(calls.asked).toBe(6);
  });

  it('answers 429 rate_limited for the entries after the quota runs out, and runs the others', async () => {
    const calls = quota(2);
    const body = await runBatch(
      reads,
      {
        operations: [
          op('a', 'tld_requirements', { tld: 'com' }),
          op('b', 'bogus', {}),
          op('c', 'tld_requirements', { tld: 'io' }),
          op('d', 'tld_requirements', { tld: 'net' }),
          op('e', 'search_domain', { q: 'x.com' }),
        ],
      },
      ctx({ calls }),
    );
    assertSchema('BatchResponse', body);
    expect(body.results.map((r) => r.status)).toEqual([200, 400, 200, 429, 429]);
    expect(body.results[3]!.body).toMatchObject({
      code: 'rate_limited',
      request_id: 'req_test',
      message: expect.stringContaining('"d"'),
    });
    // Once spent, the quota is not asked again.
    expect(calls.asked).toBe(3);
  });

  it('refuses more than 20 operations as a whole, running none', async () => {
    let ran = 0;
    const counting: PublicReads = { ...reads, tldMetadata: async (i) => (ran++, reads.tldMetadata(i)) };
    const err = await runBatch(
      counting,
      { operations: Array.from({ length: 21 }, (_, i) => op(`e${i}`, 'tld_requirements', { tld: 'com' })) },
      ctx(),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'validation_error', details: [{ path: '/body/operations' }] });
    expect(ran).toBe(0);
    const twenty = await runBatch(
      counting,
      { operations: Array.from({ length: 20 }, (_, i) => op(`e${i}`, 'tld_requirements', { tld: 'com' })) },
      ctx(),
    );
    expect(twenty.results).toHaveLength(20);
    expect(ran).toBe(20);
  });

  it('refuses duplicate ids as a whole, naming both entries', async () => {
    const err = await wholeRequestError({
      operations: [
        op('x', 'tld_requirements', { tld: 'com' }),
        op('y', 'tld_requirements', { tld: 'com' }),
        op('x', 'search_domain', { q: 'a.com' }),
      ],
    });
    expect(err.message).toContain('unique');
    expect(err.details).toEqual([
      { path: '/body/operations/2/id', message: 'duplicates the id of /body/operations/0' },
    ]);
  });

  it.each([
    [{}, '/body/operations'],
    [{ operations: [] }, '/body/operations'],
    [{ operations: [{ op: 'search_domain', params: { q: 'a.com' } }] }, '/body/operations/0/id'],
    [{ operations: [{ id: 'a', params: {} }] }, '/body/operations/0/op'],
    [{ operations: [{ id: 'a', op: 'search_domain', params: 'q=a.com' }] }, '/body/operations/0/params'],
    [{ operations: ['search_domain'] }, '/body/operations/0'],
  ])('refuses the malformed request %j as a whole', async (body, path) => {
    const err = await wholeRequestError(body);
    expect(err.details?.map((d) => d.path)).toContain(path);
  });

  it('answers an unexpected failure of one entry with its own 500, logged, without internals', async () => {
    const logged: string[] = [];
    const broken: PublicReads = {
      ...reads,
      whoisLookup: async () => {
        throw new TypeError('secret internal detail');
      },
    };
    const body = await runBatch(
      broken,
      { operations: [op('w', 'whois_lookup', { domain: 'a.com' }), op('t', 'tld_requirements', { tld: 'com' })] },
      ctx({ log: (m) => logged.push(m) }),
    );
    expect(body.results.map((r) => r.status)).toEqual([500, 200]);
    expect(JSON.stringify(body.results[0])).not.toContain('secret');
    expect(logged).toHaveLength(1);
  });
});
