// The RDAP client against a local RDAP server (node:http serving RFC 9083 JSON), with a
// bootstrap file pointing at it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../server/http/errors.ts';
import { createPublicReads } from '../../server/public-api/reads.ts';
import {
  baseUrlsFor,
  createRdapClient,
  loadBootstrap,
  parseBootstrap,
  RegistrationLookupError,
  SHIPPED_BOOTSTRAP_FILE,
} from '../../server/rdap/index.ts';
import type { Store } from '../../server/store/index.ts';
import { assertSchema, depsFor, memoryStore } from './support.ts';

/** A .org domain object as a gTLD registry answers it (RFC 9083 plus the ICANN profile). */
const EXAMPLE_ORG = {
  rdapConformance: ['rdap_level_0', 'icann_rdap_response_profile_0'],
  objectClassName: 'domain',
  handle: 'D402200000000012345-LROR',
  ldhName: 'example.org',
  status: ['client delete prohibited', 'client transfer prohibited'],
  events: [
    { eventAction: 'registration', eventDate: '1995-08-31T04:00:00Z' },
    { eventAction: 'expiration', eventDate: '2027-08-30T04:00:00.000+00:00' },
    { eventAction: 'last changed', eventDate: '2025-07-01T12:30:05.123Z' },
    { eventAction: 'last update of RDAP database', eventDate: 'yesterday' },
  ],
  entities: [
    {
      objectClassName: 'entity',
      handle: '376',
      roles: ['registrar'],
      vcardArray: [
        'vcard',
        [
          ['version', {}, 'text', '4.0'],
          ['fn', {}, 'text', 'RESERVED-Internet Assigned Numbers Authority'],
        ],
      ],
      entities: [{ objectClassName: 'entity', roles: ['abuse'] }],
    },
    {
      objectClassName: 'entity',
      roles: ['registrant'],
      vcardArray: [
        'vcard',
        [
          ['version', {}, 'text', '4.0'],
          ['fn', {}, 'text', ''],
          ['org', {}, 'text', 'Internet Assigned Numbers Authority'],
        ],
      ],
    },
    {
      objectClassName: 'entity',
      roles: ['technical'],
      vcardArray: ['vcard', [['fn', {}, 'text', 'REDACTED FOR PRIVACY']]],
    },
  ],
  nameservers: [
    { objectClassName: 'nameserver', ldhName: 'A.IANA-SERVERS.NET' },
    { objectClassName: 'nameserver', ldhName: 'B.IANA-SERVERS.NET.' },
  ],
  secureDNS: { delegationSigned: true },
  notices: [{ title: 'Terms of Use', description: ['...'] }],
};

type Route = (req: IncomingMessage, res: ServerResponse) => void;
const json =
  (status: number, body: unknown, type = 'application/rdap+json'): Route =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': type });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

const routes: Record<string, Route> = {
  '/rdap/domain/example.org': json(200, EXAMPLE_ORG),
  '/rdap/domain/free-name.org': json(404, { errorCode: 404, title: 'Not Found' }),
  '/rdap/domain/garbled.org': json(200, '{"objectClassName": "domain", "ldhName": '),
  '/rdap/domain/entity.org': json(200, { objectClassName: 'entity', handle: 'X' }),
  '/rdap/domain/noname.org': json(200, { objectClassName: 'domain', status: ['active'] }),
  '/rdap/domain/other.org': json(200, { ...EXAMPLE_ORG, ldhName: 'someone-else.org' }),
  '/rdap/domain/down.org': json(503, { errorCode: 503 }),
  '/rdap/domain/huge.org': json(200, { ...EXAMPLE_ORG, ldhName: 'huge.org', padding: 'x'.repeat(5000) }),
  '/rdap/domain/moved.org': (_req, res) => {
    res.writeHead(301, { location: '/rdap/domain/example.org' });
    res.end();
  },
  '/rdap/domain/slow.org': (_req, res) => {
    setTimeout(() => json(200, EXAMPLE_ORG)(_req, res), 1500);
  },
  '/deep/domain/a.sub.example': json(200, { objectClassName: 'domain', ldhName: 'a.sub.example' }),
};

let server: Server;
let base: string;
const seen: { url: string; accept: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', accept: req.headers.accept });
    const route = routes[req.url ?? ''];
    if (route) route(req, res);
    else json(404, { errorCode: 404 })(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client(options: { timeoutMs?: number; maxBytes?: number } = {}) {
  const bootstrap = parseBootstrap({
    version: '1.0',
    publication: '2026-01-01T00:00:00Z',
    description: 'test',
    services: [
      [
        ['org', 'NGO'],
        ['ftp://ignored.example/', `${base}/rdap/`],
      ],
      [['sub.example'], [`${base}/deep`]],
    ],
  });
  return createRdapClient({ bootstrap, ...options });
}

async function lookupError(domain: string, options?: { timeoutMs?: number; maxBytes?: number }): Promise<string> {
  const err = await client(options)
    .lookup(domain)
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RegistrationLookupError);
  return (err as Error).message;
}

describe('RDAP client', () => {
  it('asks <base>domain/<name> with the RDAP media type and converts the domain object', async () => {
    const result = await client().lookup('example.org');
    expect(seen.at(-1)).toEqual({
      url: '/rdap/domain/example.org',
      accept: expect.stringContaining('application/rdap+json'),
    });
    assertSchema('WhoisResult', result);
    expect(result).toMatchObject({
      objectClassName: 'domain',
      ldhName: 'example.org',
      handle: 'D402200000000012345-LROR',
      domain: 'example.org',
      registrar: 'RESERVED-Internet Assigned Numbers Authority',
      registrant: 'Internet Assigned Numbers Authority',
      created_at: '1995-08-31T04:00:00Z',
      // Offsets and fractions normalised to UTC with Z.
      expires_at: '2027-08-30T04:00:00Z',
      updated_at: '2025-07-01T12:30:05.123Z',
      nameserver_names: ['a.iana-servers.net', 'b.iana-servers.net'],
      status: ['client delete prohibited', 'client transfer prohibited'],
    });
    // An event without a valid date is dropped rather than passed on.
    expect(result?.events.map((e) => e.eventAction)).toEqual(['registration', 'expiration', 'last changed']);
  });

  it('treats a registry 404 as "no record"', async () => {
    expect(await client().lookup('free-name.org')).toBeUndefined();
  });

  it('knows nothing of a TLD without an RDAP service in the bootstrap (and asks no one)', async () => {
    const before = seen.length;
    expect(await client().lookup('example.de')).toBeUndefined();
    expect(seen.length).toBe(before);
  });

  it('matches bootstrap entries case-insensitively and prefers the longest one (RFC 9224)', async () => {
    expect((await client().lookup('example.ngo')) ?? 'none').toBe('none');
    expect(seen.at(-1)?.url).toBe('/rdap/domain/example.ngo');
    expect((await client().lookup('a.sub.example'))?.domain).toBe('a.sub.example');
    expect(seen.at(-1)?.url).toBe('/deep/domain/a.sub.example');
  });

  it('follows a redirect (RFC 7480 §5.2) and checks the answer is about the name asked', async () => {
    expect(await lookupError('moved.org')).toContain('describes example.org, not moved.org');
  });

  it.each([
    ['garbled.org', 'not JSON'],
    ['entity.org', 'malformed domain object: objectClassName is "entity"'],
    ['noname.org', 'malformed domain object: the domain object has no ldhName'],
    ['other.org', 'describes someone-else.org, not other.org'],
    ['down.org', 'answered HTTP 503'],
  ])('refuses %s with a clear message (%s)', async (domain, text) => {
    const message = await lookupError(domain);
    expect(message).toContain(text);
    expect(message).toContain('127.0.0.1');
  });

  it('gives up on an answer larger than the limit', async () => {
    expect(await lookupError('huge.org', { maxBytes: 1000 })).toContain('could not be read within 1000 bytes');
  });

  it('gives up on a registry that does not answer in time', async () => {
    expect(await lookupError('slow.org', { timeoutMs: 200 })).toContain('did not answer within 200 ms');
  });

  it('says so when the service cannot be reached', async () => {
    const dead = createRdapClient({
      bootstrap: parseBootstrap({ version: '1.0', publication: 'x', services: [[['org'], ['http://127.0.0.1:1/']]] }),
    });
    const err = await dead.lookup('example.org').catch((e: unknown) => e);
    expect((err as Error).message).toBe('The RDAP service 127.0.0.1:1 could not be reached; try again later');
  });
});

describe('WHOIS through the RDAP client', () => {
  let store: Store;
  beforeAll(async () => {
    store = await memoryStore(50);
  });
  afterAll(() => store.close());

  it('answers names outside the sandbox from RDAP, 404 for a free one, and a clear 500 for a malformed answer', async () => {
    const reads = createPublicReads(depsFor(store), { registrations: client() });
    expect((await reads.whoisLookup({ domain: 'example.org' })).registrar).toBe(
      'RESERVED-Internet Assigned Numbers Authority',
    );
    const free = await reads.whoisLookup({ domain: 'free-name.org' }).catch((e: unknown) => e);
    expect(free).toMatchObject({ code: 'not_found', status: 404 });
    const bad = await reads.whoisLookup({ domain: 'garbled.org' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ApiError);
    expect(bad).toMatchObject({
      code: 'internal_error',
      message: expect.stringContaining('answered something that is not JSON'),
    });
    expect((bad as ApiError).message).not.toMatch(/SyntaxError|Unexpected|\n|\{/);
  });
});

describe('the shipped bootstrap file', () => {
  it('is in IANA format and covers the common TLDs with HTTPS services', () => {
    const bootstrap = loadBootstrap(SHIPPED_BOOTSTRAP_FILE);
    expect(bootstrap.publication).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    for (const tld of ['com', 'net', 'org', 'io', 'dev', 'app', 'ai']) {
      const urls = baseUrlsFor(bootstrap, `example.${tld}`);
      expect(urls?.[0], tld).toMatch(/^https:\/\/[^/]+\/.*\/$|^https:\/\/[^/]+\/$/);
    }
    expect(baseUrlsFor(bootstrap, 'example.com')?.[0]).toBe('https://rdap.verisign.com/com/v1/');
  });

  it('refuses a file not in the bootstrap format', () => {
    expect(() => parseBootstrap({ version: '2.0', publication: 'x', services: [] })).toThrow(/version/);
    expect(() => parseBootstrap({ version: '1.0', publication: 'x', services: [['com']] })).toThrow(/service 0/);
  });
});
