// A fake PublicReads with fixed answers, and the MCP handlers on a bare Express app with a
// stand-in for the pipeline (request id, bearer token → viewer) and its body reader, operation
// lookup and error handler.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import express from 'express';
import type { components } from '../../generated/public.d.ts';
import { manualClock } from '../../server/clock.ts';
import { NO_FAULTS } from '../../server/faults.ts';
import { ApiError } from '../../server/http/errors.ts';
import { ApiContract } from '../../server/contract/index.ts';
import { matchOperation } from '../../server/http/match-operation.ts';
import { jsonBody, rawBody } from '../../server/http/raw-body.ts';
import { mcpHandlers, type McpEndpointOptions } from '../../server/mcp/index.ts';
import { errorShapes, publicErrorHandler } from '../../server/public-api/error-format.ts';
import type { PublicDeps, Viewer } from '../../server/public-api/context.ts';
import type { PublicReads } from '../../server/public-api/reads-service.ts';
import type { Store } from '../../server/store/index.ts';

type Schemas = components['schemas'];

export type JsonSchema = Record<string, unknown>;
export const publicDoc = JSON.parse(
  readFileSync(new URL('../../generated/public.openapi.json', import.meta.url), 'utf8'),
) as {
  components: { schemas: Record<string, JsonSchema> };
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
ajv.addSchema({ $id: 'public', components: publicDoc.components });
const compiled = new Map<string, ValidateFunction>();

/** Ajv's verdict on `value` against the component schema `name` of the public document (null: valid). */
export function schemaErrors(name: string, value: unknown): string | null {
  let validate = compiled.get(name);
  if (!validate) {
    validate = ajv.compile({ $ref: `public#/components/schemas/${name}` });
    compiled.set(name, validate);
  }
  return validate(value) ? null : JSON.stringify(validate.errors);
}

/** A schema of the public document with its `$ref`s followed (one level at a time, as needed). */
export function resolve(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = publicDoc.components.schemas[name];
  if (!target) throw new Error(`unresolvable ${ref}`);
  return resolve(target);
}

export const REAL_PRICE = 289_900;

/** Answers like the real reads would for a handful of fixed inputs; records what it was asked. */
export function fakeReads() {
  const calls: Array<{ method: string; input: unknown; viewer?: Viewer | undefined }> = [];
  const reads: PublicReads = {
    async searchDomain(input, viewer) {
      calls.push({ method: 'searchDomain', input, viewer });
      const unmasked = viewer?.scopes.includes('pricing:read') ?? false;
      const domain = input.q.includes('.') ? input.q : `${input.q}.com`;
      const result: Schemas['DomainSearchResult'] = {
        domain,
        tld: domain.split('.').pop() as string,
        available: true,
        status: 'listed',
        price: unmasked ? REAL_PRICE : null,
        currency: 'USD',
        price_masked: !unmasked,
      };
      const label = domain.split('.')[0] as string;
      return {
        query: domain,
        result,
        alternatives: [
          {
            domain: `${label}.net`,
            tld: 'net',
            available: false,
            status: 'taken',
            price: null,
            currency: 'USD',
            price_masked: false,
          },
        ],
      };
    },
    async whoisLookup(input) {
      calls.push({ method: 'whoisLookup', input });
      if (input.domain === 'unregistered-example.com')
        throw new ApiError('not_found', `No registration record for "${input.domain}"`);
      return {
        objectClassName: 'domain',
        ldhName: input.domain.toUpperCase(),
        status: ['active'],
        events: [{ eventAction: 'registration', eventDate: '2019-03-11T17:42:06Z' }],
        entities: [{ objectClassName: 'entity', roles: ['registrar'], handle: '1234' }],
        nameservers: [{ objectClassName: 'nameserver', ldhName: 'NS1.EXAMPLEDNS.NET' }],
        domain: input.domain,
        registrar: 'Example Registrar, Inc.',
        registrant: null,
        created_at: '2019-03-11T17:42:06Z',
        updated_at: null,
        expires_at: '2027-03-11T17:42:06Z',
        nameserver_names: ['ns1.exampledns.net'],
      };
    },
    async tldPrice(input) {
      calls.push({ method: 'tldPrice', input });
      const prices = { register: 1099, renew: 1299, transfer: 1099, restore: 8000 };
      if (input.action)
        return {
          tld: input.tld,
          currency: 'USD',
          term_years: 1,
          prices: { [input.action]: prices[input.action] },
          action: input.action,
          price: prices[input.action],
        };
      return { tld: input.tld, currency: 'USD', term_years: 1, prices };
    },
    async tldMetadata(input) {
      calls.push({ method: 'tldMetadata', input });
      if (input.tld === 'zz') throw new ApiError('not_found', 'TLD "zz" is not offered');
      if (input.tld === 'boom') throw new Error('database on fire');
      return {
        tld: input.tld,
        type: 'country-code',
        term_years: { min: 1, max: 10 },
        organization: { required: false, local_presence_required: false, eligibility: null },
        nameservers: { min: 2, max: 13, must_resolve: false },
        idn_supported: false,
        dnssec_supported: true,
        privacy_supported: true,
      };
    },
  };
  return { reads, calls };
}

export const VIEWER: Viewer = {
  userId: 'usr_1',
  clientId: 'cli_1',
  grantId: 'gr_1',
  scopes: ['pricing:read'],
  resource: 'http://x/mcp',
};
export const GOOD_TOKEN = 'good-token-for-tests';

export interface MiniServer {
  url: string;
  logged: string[];
  close(): Promise<void>;
}

/** The MCP handlers behind a minimal pipeline; `baseUrl` is what deps.baseUrl answers. */
export async function startMiniServer(
  reads: PublicReads,
  options: McpEndpointOptions & { baseUrl?: string } = {},
): Promise<MiniServer> {
  const logged: string[] = [];
  const deps: PublicDeps = {
    store: {} as Store,
    clock: manualClock(),
    faults: NO_FAULTS,
    keys: { cursors: Buffer.alloc(32), oauth: Buffer.alloc(32) },
    baseUrl: (req) => options.baseUrl ?? `http://${req.get('host')}`,
    log: (message, err) => void logged.push(`${message}: ${String(err)}`),
  };
  const handlers = mcpHandlers(deps, reads, options);
  const app = express();
  app.use((req, res, next) => {
    res.setHeader('X-Request-Id', 'req_test_1');
    if (req.get('authorization') === `Bearer ${GOOD_TOKEN}`) {
      res.locals.viewer = VIEWER;
      res.locals.bearerToken = GOOD_TOKEN;
    }
    next();
  });
  // The pipeline's own body reader and operation lookup, and its error handler: errors on the
  // MCP operations are JSON-RPC error responses there (x-error-format: jsonrpc).
  const contract = new ApiContract('public', publicDoc);
  app.use(matchOperation(contract), rawBody(), jsonBody());
  app.post('/mcp', handlers.postMcpMessage!);
  app.get('/mcp', handlers.getMcpStream!);
  app.delete('/mcp', handlers.deleteMcpSession!);
  app.get('/.well-known/mcp.json', handlers.getMcpManifest!);
  app.get('/.well-known/mcp', handlers.getMcpManifestAlias!);
  app.get('/mcp/server-card', handlers.getMcpServerCard!);
  app.get('/.well-known/mcp/server-card.json', handlers.getMcpServerCardWellKnown!);
  app.use(publicErrorHandler(errorShapes(contract), () => {}, NO_FAULTS));
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    logged,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
