// The Spectral gate of `npm run lint:spec` (scripts/lint-spectral.ts with spectral.ruleset.mjs)
// has teeth: the bundled documents are clean, and each kind of problem the review kept, put back
// into a copy of a document, is reported again. The copies are linted under the real file names,
// so the ruleset's overrides apply exactly as they do to the real documents.
import { describe, expect, it } from 'vitest';
import { lintWithSpectral } from '../../scripts/lint-spectral.ts';
import { documents, type Json } from '../docs/support.ts';

type Api = 'public' | 'partner' | 'admin';
const at = (doc: Json, path: Array<string | number>): Json => path.reduce<Json>((node, key) => node[key] as Json, doc);

type Row = [string, Api, (doc: Json) => void, { code: string; path: string }];

/** A case: an operation of `api` loses its `status` answer, and Spectral must report `code` there. */
const withoutAnswer = (what: string, api: Api, path: string, method: string, status: string, code: string): Row => [
  what,
  api,
  (doc) => delete at(doc, ['paths', path, method, 'responses'])[status],
  { code, path: `paths.${path}.${method}.responses` },
];

/** The findings (code and path) on a copy of `api` changed by `change`. */
async function findingsAfter(api: Api, change: (doc: Json) => void) {
  const copy = structuredClone(documents[api]);
  change(copy);
  return (await lintWithSpectral([api], { [api]: JSON.stringify(copy) })).map((f) => ({ code: f.code, path: f.path }));
}

describe('Spectral: spectral:oas and the reviewed OWASP ruleset', () => {
  it('report nothing on the three bundled documents', async () => {
    expect(await lintWithSpectral()).toEqual([]);
  }, 60_000);

  it.each<Row>([
    [
      'an array schema without items (spectral:oas)',
      'public',
      // (Not inside the jCard tuple: array-items is off there, spectral.ruleset.mjs says why.)
      (doc) => delete at(doc, ['components', 'schemas', 'RdapEntity', 'properties', 'roles']).items,
      { code: 'array-items', path: 'components.schemas.RdapEntity.properties.roles' },
    ],
    [
      'a request string without maxLength',
      'public',
      (doc) =>
        delete at(doc, ['components', 'schemas', 'ClientRegistrationRequest', 'properties', 'software_id']).maxLength,
      {
        code: 'owasp:api4:2023-string-limit',
        path: 'components.schemas.ClientRegistrationRequest.properties.software_id',
      },
    ],
    [
      'a request string whose pattern no longer bounds its length',
      'partner',
      (doc) => (at(doc, ['components', 'schemas', 'OrderPublicId']).pattern = '^ord_[0-9A-Za-z]+$'),
      { code: 'owasp:api4:2023-string-limit', path: 'components.schemas.OrderPublicId' },
    ],
    [
      'a request integer without maximum',
      'public',
      (doc) => delete at(doc, ['components', 'parameters', 'Offset', 'schema']).maximum,
      { code: 'owasp:api4:2023-integer-limit', path: 'components.parameters.Offset.schema' },
    ],
    [
      'a 2xx answer without rate-limit headers',
      'public',
      (doc) =>
        (at(doc, ['paths', '/api/pricing/tld', 'get', 'responses', '200']).headers = {
          'X-Request-Id': { schema: { type: 'string' } },
        }),
      { code: 'owasp:api4:2023-rate-limit', path: 'paths./api/pricing/tld.get.responses.200.headers' },
    ],
    [
      'a partner answer without rate-limit headers (only the unidentified 401 and 413 are exempt)',
      'partner',
      (doc) =>
        (at(doc, ['paths', '/api/partner/v1/availability', 'get', 'responses', '200']).headers = {
          'X-Request-Id': { schema: { type: 'string' } },
        }),
      { code: 'owasp:api4:2023-rate-limit', path: 'paths./api/partner/v1/availability.get.responses.200.headers' },
    ],
    withoutAnswer(
      'an operation that reads a token without its 401',
      'public',
      '/api/domains/bulk/{op}',
      'post',
      '401',
      'owasp:api8:2023-define-error-responses-401',
    ),
    withoutAnswer(
      'an operation with query parameters without its 400',
      'public',
      '/api/market/listings',
      'get',
      '400',
      'owasp:api8:2023-define-error-validation',
    ),
    withoutAnswer(
      'an operation without any 500',
      'admin',
      '/api/admin/v1/payouts',
      'post',
      '500',
      'owasp:api8:2023-define-error-responses-500',
    ),
    [
      'a server without its audience',
      'partner',
      (doc) => delete at(doc, ['servers', 1])['x-internal'],
      { code: 'owasp:api9:2023-inventory-access', path: 'servers.1' },
    ],
    [
      'a deployment server on plain http (only the loopback sandbox is exempt)',
      'public',
      (doc) => (at(doc, ['servers', 1]).url = 'http://{host}'),
      { code: 'owasp:api8:2023-no-server-http', path: 'servers.1.url' },
    ],
  ])(
    'report %s',
    async (_what, api, change, expected) => {
      expect(await findingsAfter(api, change)).toContainEqual(expected);
    },
    60_000,
  );
});
