// The generator matrix (scripts/generator-matrix/): hey-api, orval and openapi-zod-client generate
// clients from the bundled documents, each output type-checks under `tsc --strict`, and each
// client calls a live reference server: public calls plainly, partner calls signed through the
// client package's createPartnerFetch. hey-api's SDK and the Zodios client parse every answer
// with their generated zod schemas, so a document construct they misread fails the call here.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartnerFetch } from '../../client/partner.ts';
import { startReferenceServer } from '../../conformance/run.ts';
import {
  GENERATORS,
  entryOf,
  generateAll,
  typecheck,
  versionOf,
  type GeneratorName,
  type TypecheckResult,
} from '../../scripts/generator-matrix/index.ts';
import { ROOT } from '../../scripts/contract.ts';
import { measureStartup } from '../support/startup.ts';

// Measured on the 2-core machine under a load of 17 (one start-up 1.3 s): the three generators in
// parallel 27 s, tsc over their output 45-50 s, the live calls a few seconds. The set-up may take
// 120 start-ups (about three times that); each call test 15.
const startup = await measureStartup();
const SETUP = startup.timeout(120, 120_000);
const CALLS = startup.timeout(15);

// Under the repository (ignored by git, lint and format) so the generated code resolves the
// project's packages; one folder per run.
const OUT = join(ROOT, '.tmp', `generator-matrix-${process.pid}`);
let server: Awaited<ReturnType<typeof startReferenceServer>>;
let checked: TypecheckResult;
let signed: typeof fetch;
/** A domain of the sandbox inventory (from the listings), so WHOIS has an RDAP record with a jCard. */
let domain = '';

const load = async <T>(generator: GeneratorName, surface: 'public' | 'partner') =>
  (await import(pathToFileURL(entryOf(OUT, generator, surface)).href)) as T;

beforeAll(async () => {
  await mkdir(OUT, { recursive: true });
  const [, started] = await Promise.all([generateAll(OUT), startReferenceServer()]);
  server = started;
  checked = await typecheck(OUT);
  const minted = await fetch(`${server.url}/api/admin/v1/credentials`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ environment: 'sandbox', scopes: ['search', 'buy'] }),
  });
  expect(minted.status).toBe(201);
  const credential = (await minted.json()) as { key_id: string; secret: string };
  signed = createPartnerFetch({ keyId: credential.key_id, secret: credential.secret, retry: false });
  const listings = (await (await fetch(`${server.url}/api/market/listings?limit=1`)).json()) as {
    data: Array<{ domain: string }>;
  };
  domain = listings.data[0]!.domain;
}, SETUP);

afterAll(async () => {
  await server?.stop();
  await rm(OUT, { recursive: true, force: true });
});

describe.each(GENERATORS.map((g) => [`${g.name} ${versionOf(g.pkg)}`, g] as const))('%s', (_label, g) => {
  it('generates a client of both documents that type-checks under tsc --strict', () => {
    expect(checked.errors[g.name]).toEqual([]);
  });

  it('lists every construct it cannot handle with the reason', () => {
    for (const entry of g.listed) expect(entry.reason.length, entry.construct).toBeGreaterThan(20);
  });
});

// Each generator's calling convention, typed here by what the test uses of it.
interface HeyResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}
type HeyCall<Options, T> = (options: Options & { client: unknown }) => Promise<HeyResult<T>>;

describe('hey-api: live calls', () => {
  const client = async (surface: 'public' | 'partner', fetchImpl?: typeof fetch) => {
    const { createClient } = (await import(
      pathToFileURL(join(OUT, 'hey-api', surface, 'client', 'index.ts')).href
    )) as {
      createClient(config: { baseUrl: string; fetch?: typeof fetch }): unknown;
    };
    return createClient({ baseUrl: server.url, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  };

  it(
    'public: search, WHOIS (with its jCard) and listings, each answer parsed by the generated zod schemas',
    async () => {
      const sdk = await load<{
        searchDomain: HeyCall<{ body: { q: string } }, { result: { domain: string } }>;
        whoisLookup: HeyCall<{ body: { domain: string } }, { entities?: Array<{ vcardArray?: unknown[] }> }>;
        listMarketListings: HeyCall<{ query: { limit: number } }, { data: unknown[] }>;
      }>('hey-api', 'public');
      const c = await client('public');
      const search = await sdk.searchDomain({ client: c, body: { q: domain } });
      expect(search.response.status).toBe(200);
      expect(search.data?.result.domain).toBe(domain);
      const whois = await sdk.whoisLookup({ client: c, body: { domain } });
      expect(whois.response.status).toBe(200);
      expect(whois.data?.entities?.some((e) => Array.isArray(e.vcardArray))).toBe(true);
      const listings = await sdk.listMarketListings({ client: c, query: { limit: 3 } });
      expect(listings.data?.data).toHaveLength(3);
    },
    CALLS,
  );

  it(
    'partner: a signed GET and a signed POST through createPartnerFetch',
    async () => {
      const sdk = await load<{
        getAvailability: HeyCall<{ query: { domain: string } }, { domain: string; available: boolean }>;
        createQuote: HeyCall<{ body: { domain: string } }, { quote_id: string; domain: string }>;
      }>('hey-api', 'partner');
      const c = await client('partner', signed);
      const availability = await sdk.getAvailability({ client: c, query: { domain } });
      expect(availability.response.status, JSON.stringify(availability.error)).toBe(200);
      expect(availability.data?.domain).toBe(domain);
      const quote = await sdk.createQuote({ client: c, body: { domain } });
      expect(quote.response.status, JSON.stringify(quote.error)).toBeLessThan(300);
      expect(quote.data?.domain).toBe(domain);
      // The same call unsigned is refused: the signature is what let it through.
      const unsigned = await sdk.getAvailability({ client: await client('partner'), query: { domain } });
      expect(unsigned.response.status).toBe(401);
    },
    CALLS,
  );
});

interface OrvalAnswer<T> {
  data: T;
  status: number;
}
type OrvalOptions = { baseUrl: string; fetch?: typeof fetch };

describe('orval: live calls', () => {
  it(
    'public: search, WHOIS and TLD pricing',
    async () => {
      const api = await load<{
        searchDomain(body: { q: string }, options: OrvalOptions): Promise<OrvalAnswer<{ result: { domain: string } }>>;
        whoisLookup(body: { domain: string }, options: OrvalOptions): Promise<OrvalAnswer<{ domain: string }>>;
        getTldPrice(params: { tld: string }, options: OrvalOptions): Promise<OrvalAnswer<{ tld: string }>>;
      }>('orval', 'public');
      const at = { baseUrl: server.url };
      const search = await api.searchDomain({ q: domain }, at);
      expect(search.status).toBe(200);
      expect(search.data.result.domain).toBe(domain);
      expect((await api.whoisLookup({ domain }, at)).status).toBe(200);
      const price = await api.getTldPrice({ tld: 'com' }, at);
      expect([price.status, price.data.tld]).toEqual([200, 'com']);
    },
    CALLS,
  );

  it(
    'partner: a signed GET and a signed POST through createPartnerFetch',
    async () => {
      const api = await load<{
        getAvailability(params: { domain: string }, options: OrvalOptions): Promise<OrvalAnswer<{ domain: string }>>;
        createQuote(body: { domain: string }, options: OrvalOptions): Promise<OrvalAnswer<{ domain: string }>>;
      }>('orval', 'partner');
      const at = { baseUrl: server.url, fetch: signed };
      const availability = await api.getAvailability({ domain }, at);
      expect([availability.status, availability.data.domain]).toEqual([200, domain]);
      const quote = await api.createQuote({ domain }, at);
      expect(quote.status, JSON.stringify(quote.data)).toBeLessThan(300);
      expect((await api.getAvailability({ domain }, { baseUrl: server.url })).status).toBe(401);
    },
    CALLS,
  );
});

type ZodiosClient = Record<string, (...args: unknown[]) => Promise<unknown>>;
interface ZodiosModule {
  createApiClient(baseUrl: string, options?: { axiosConfig?: Record<string, unknown> }): ZodiosClient;
}

describe('openapi-zod-client: live calls', () => {
  it(
    'public: search, WHOIS and listings, each answer parsed by the generated zod schemas',
    async () => {
      const api = (await load<ZodiosModule>('openapi-zod-client', 'public')).createApiClient(server.url);
      const search = (await api.searchDomain!({ q: domain })) as { result: { domain: string } };
      expect(search.result.domain).toBe(domain);
      const whois = (await api.whoisLookup!({ domain })) as { entities?: Array<{ vcardArray?: unknown[] }> };
      expect(whois.entities?.some((e) => Array.isArray(e.vcardArray))).toBe(true);
      const listings = (await api.listMarketListings!({ queries: { limit: 3 } })) as { data: unknown[] };
      expect(listings.data).toHaveLength(3);
    },
    CALLS,
  );

  it(
    "partner: a signed GET and a signed POST, through axios's fetch adapter on createPartnerFetch",
    async () => {
      const { createApiClient } = await load<ZodiosModule>('openapi-zod-client', 'partner');
      const api = createApiClient(server.url, { axiosConfig: { adapter: 'fetch', env: { fetch: signed } } });
      const availability = (await api.getAvailability!({ queries: { domain } })) as { domain: string };
      expect(availability.domain).toBe(domain);
      const quote = (await api.createQuote!({ domain })) as { domain: string };
      expect(quote.domain).toBe(domain);
      await expect(createApiClient(server.url).getAvailability!({ queries: { domain } })).rejects.toThrow(/401/);
    },
    CALLS,
  );
});
