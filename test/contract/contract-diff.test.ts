// The breaking-change gate (scripts/contract-diff.ts): mutated copies of the real bundles are
// compared with the originals by the gate's core function (redocly diff + our enum classifier).
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { bundlePath, type ApiName } from '../../scripts/contract.ts';
import { diffApi, passes, renderMarkdown, type ApiDiff } from '../../scripts/contract-diff.ts';

type Json = Record<string, any>;
const load = (api: ApiName): Json => JSON.parse(readFileSync(bundlePath(api), 'utf8')) as Json;
const ORIGINAL = { partner: load('partner'), public: load('public'), admin: load('admin') };
const ORIGINAL_VERSION = (ORIGINAL.partner as { info: { version: string } }).info.version;

async function gate(api: ApiName, mutate: (doc: Json) => void): Promise<ApiDiff> {
  const revision = structuredClone(ORIGINAL[api]);
  mutate(revision);
  return diffApi(api, ORIGINAL[api], revision);
}

const schemas = (doc: Json): Json => doc.components.schemas;
const messages = (d: ApiDiff) => d.breaking.map((c) => `${c.where}: ${c.message}`).join('\n');

describe('contract:diff gate', { timeout: 60_000 }, () => {
  it('passes when nothing changed', async () => {
    const d = await gate('partner', () => {});
    expect(d.changes).toEqual([]);
    expect(passes([d])).toBe(true);
  });

  it('fails on a removed response field (partner)', async () => {
    const d = await gate('partner', (doc) => {
      const quote = schemas(doc).Quote;
      delete quote.properties.expires_at;
      quote.required = quote.required.filter((n: string) => n !== 'expires_at');
    });
    expect(passes([d])).toBe(false);
    expect(messages(d)).toMatch(/POST \/api\/partner\/v1\/quotes: .*`expires_at`.*removed/);
  });

  it('fails on a removed optional response field (public)', async () => {
    const d = await gate('public', (doc) => {
      const result = schemas(doc).DomainSearchResult;
      delete result.properties.price_masked;
      result.required = result.required.filter((n: string) => n !== 'price_masked');
    });
    expect(passes([d])).toBe(false);
    expect(messages(d)).toMatch(/POST \/api\/domain\/search: Property `price_masked` .* removed/);
  });

  it('fails on a renamed field', async () => {
    const d = await gate('partner', (doc) => {
      const quote = schemas(doc).Quote;
      quote.properties.price = quote.properties.price_cents;
      delete quote.properties.price_cents;
      quote.required = quote.required.map((n: string) => (n === 'price_cents' ? 'price' : n));
    });
    expect(passes([d])).toBe(false);
    // redocly says "renamed to" when it can pair the two properties, "removed" otherwise: both fail.
    expect(messages(d)).toMatch(/Property `price_cents` of `Quote` was (removed|renamed to `price`)/);
  });

  it('fails on a new required request field', async () => {
    const d = await gate('partner', (doc) => {
      const request = schemas(doc).QuoteRequest;
      request.properties.coupon = { type: 'string' };
      request.required = [...request.required, 'coupon'];
    });
    expect(passes([d])).toBe(false);
    expect(messages(d)).toMatch(/POST \/api\/partner\/v1\/quotes: .*became required: `coupon`/);
  });

  it('fails on a new required query parameter', async () => {
    const d = await gate('public', (doc) => {
      doc.paths['/api/tools/whois'].post.parameters = [
        ...(doc.paths['/api/tools/whois'].post.parameters ?? []),
        { name: 'registry', in: 'query', required: true, schema: { type: 'string' } },
      ];
    });
    expect(passes([d])).toBe(false);
  });

  it('fails on a narrowed request enum (redocly rates it major)', async () => {
    const d = await gate('public', (doc) => {
      const ops = schemas(doc).BulkOperationName;
      ops.enum = ops.enum.filter((v: string) => v !== 'unlock');
    });
    expect(passes([d])).toBe(false);
    expect(messages(d)).toMatch(/lost values: 'unlock'/);
  });

  it('fails on a narrowed response enum (our classifier: redocly rates it a patch)', async () => {
    const d = await gate('public', (doc) => {
      const status = schemas(doc).DomainSearchResult.properties.status;
      status.enum = status.enum.filter((v: string) => v !== 'taken');
    });
    expect(passes([d])).toBe(false);
    expect(d.breaking.some((c) => c.rule?.startsWith('enum-narrowed') && c.message.includes('"taken"'))).toBe(true);
  });

  it('fails on a removed operation', async () => {
    const d = await gate('partner', (doc) => {
      delete doc.paths['/api/partner/v1/quotes'];
    });
    expect(passes([d])).toBe(false);
    expect(messages(d)).toMatch(/\/api\/partner\/v1\/quotes.*removed/);
  });

  it('fails on a removed method of a path that stays (public)', async () => {
    const d = await gate('public', (doc) => {
      delete doc.paths['/api/batch'].post;
    });
    expect(passes([d])).toBe(false);
    expect(messages(d)).toMatch(/Operation `POST \/api\/batch` was removed/);
  });

  it('passes on additive changes: optional fields, a new operation, a new version path', async () => {
    const partner = await gate('partner', (doc) => {
      schemas(doc).Quote.properties.tax_cents = { type: 'integer', minimum: 0 };
      schemas(doc).QuoteRequest.properties.note = { type: 'string', maxLength: 200 };
      doc.paths['/api/partner/v2/quotes'] = structuredClone(doc.paths['/api/partner/v1/quotes']);
      doc.paths['/api/partner/v2/quotes'].post.operationId = 'createQuoteV2';
    });
    const pub = await gate('public', (doc) => {
      schemas(doc).DomainSearchResult.properties.premium = { type: 'boolean' };
      schemas(doc).DomainSearchRequest.properties.locale = { type: 'string', maxLength: 35 };
      doc.paths['/api/tools/dns'] = {
        get: {
          operationId: 'dnsLookup',
          summary: 'DNS lookup',
          tags: ['Search'],
          responses: { '200': { description: 'ok' } },
        },
      };
    });
    expect(messages(partner)).toBe('');
    expect(messages(pub)).toBe('');
    expect(partner.changes.length).toBeGreaterThan(0);
    expect(passes([partner, pub])).toBe(true);
  });

  it('reports a breaking change to the internal admin API without failing', async () => {
    const d = await gate('admin', (doc) => {
      delete doc.paths['/api/admin/v1/payouts'];
    });
    expect(d.breaking.length).toBeGreaterThan(0);
    expect(passes([d])).toBe(true);
    expect(renderMarkdown([d], 'base')).toMatch(/reported, not failing/);
  });

  describe('a breaking change accepted in the spec (x-accepted-breaking-change)', () => {
    const narrow = (acceptance: unknown) => (doc: Json) => {
      const domain = schemas(doc).QuoteRequest.properties.domain;
      const own = { ...(domain.$ref ? schemas(doc).DomainName : domain), $ref: undefined, maxLength: 63 };
      if (acceptance !== undefined) own['x-accepted-breaking-change'] = acceptance;
      schemas(doc).QuoteRequest.properties.domain = JSON.parse(JSON.stringify(own));
      doc.info.version = release;
    };
    let release = '9.1.0';
    beforeEach(() => {
      release = '9.1.0';
    });

    it('passes, and lists the change with its reason apart from the compatible ones', async () => {
      const d = await gate(
        'partner',
        narrow({ keywords: ['maxLength'], reason: 'Longer names were never sold.', version: '9.1.0' }),
      );
      expect(passes([d])).toBe(true);
      expect(d.breaking).toEqual([]);
      expect(d.accepted.length).toBeGreaterThan(0);
      const md = renderMarkdown([d], 'HEAD~1');
      expect(md).toContain('accepted in the spec');
      expect(md).toContain('Accepted: Longer names were never sold.');
    });

    it.each([
      ['no acceptance', undefined],
      ['an acceptance of another keyword', { keywords: ['pattern'], reason: 'Something else.', version: '9.1.0' }],
      ['an acceptance without a reason', { keywords: ['maxLength'], reason: ' ', version: '9.1.0' }],
      [
        'an acceptance without the version that makes the change',
        { keywords: ['maxLength'], reason: 'Longer names were never sold.' },
      ],
      [
        'an acceptance left over from an earlier release',
        { keywords: ['maxLength'], reason: 'Longer names were never sold.', version: '9.0.0' },
      ],
      ['a malformed acceptance', 'maxLength'],
    ])('still fails with %s', async (_name, acceptance) => {
      const d = await gate('partner', narrow(acceptance));
      expect(passes([d])).toBe(false);
      expect(d.accepted).toEqual([]);
    });

    it('passes when the schema that holds the member accepts it for its members', async () => {
      const d = await gate('partner', (doc) => {
        narrow(undefined)(doc);
        schemas(doc).QuoteRequest['x-accepted-breaking-change'] = {
          keywords: ['maxLength'],
          reason: 'Limits the server enforced already.',
          version: '9.1.0',
        };
      });
      expect(passes([d])).toBe(true);
      expect(d.accepted.length).toBeGreaterThan(0);
    });

    it('passes a renamed property when its schema accepts a change of `properties` (and of `required`)', async () => {
      const rename = (keywords: string[]) => (doc: Json) => {
        const schema = schemas(doc).QuoteRequest;
        schema.properties = { name: schema.properties.domain };
        schema.required = ['name'];
        schema['x-accepted-breaking-change'] = { keywords, reason: 'Renamed for clarity.', version: '9.1.0' };
        doc.info.version = '9.1.0';
      };
      expect(passes([await gate('partner', rename(['required']))])).toBe(false);
      const d = await gate('partner', rename(['required', 'properties']));
      expect(d.breaking).toEqual([]);
      expect(passes([d])).toBe(true);
    });

    it('still fails when the document keeps the version of the base (the acceptance is stale)', async () => {
      release = ORIGINAL_VERSION;
      const d = await gate(
        'partner',
        narrow({ keywords: ['maxLength'], reason: 'Longer names were never sold.', version: ORIGINAL_VERSION }),
      );
      expect(passes([d])).toBe(false);
    });
  });

  it('passes an API that has no document at the base', async () => {
    const d = await diffApi('public', undefined, ORIGINAL.public);
    expect(d.newApi).toBe(true);
    expect(passes([d])).toBe(true);
  });

  it('renders readable Markdown naming the operation and the change', async () => {
    const d = await gate('partner', (doc) => {
      delete schemas(doc).Quote.properties.currency;
      schemas(doc).Quote.required = schemas(doc).Quote.required.filter((n: string) => n !== 'currency');
    });
    const md = renderMarkdown([d], 'HEAD~1');
    expect(md).toContain('# Contract diff: `HEAD~1` → working tree');
    expect(md).toContain('❌ Breaking changes to a published contract.');
    expect(md).toMatch(/\| partner \| .* \| ❌ fail \|/);
    expect(md).toMatch(/- `POST \/api\/partner\/v1\/quotes`.*`currency`/);
    expect(md).toContain('/api/partner/v2');
  });
});
