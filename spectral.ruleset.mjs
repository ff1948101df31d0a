// The Spectral rulesets of the contract. scripts/lint-spectral.ts (part of `npm run lint:spec`,
// so of `npm test`) applies them to the three bundled documents in generated/ and fails on any
// finding. The Spectral CLI reads this file as it is:
//   npx @stoplight/spectral-cli lint -r spectral.ruleset.mjs generated/*.openapi.json
//
// - spectral:oas (recommended), as published.
// - The OWASP API Security Top 10 2023 ruleset (@stoplight/spectral-owasp-ruleset, recommended),
//   reviewed finding by finding: the real findings were fixed in spec/; a rule that does not fit
//   this contract is narrowed to where it does or turned off below, each with its reason. Nothing
//   is excepted by location except what `overrides` lists, each with its reason.
import spectralCore from '@stoplight/spectral-core';
import rulesets from '@stoplight/spectral-rulesets';
import owaspModule from '@stoplight/spectral-owasp-ruleset';

const { createRulesetFunction } = spectralCore;
const { oas } = rulesets;
const owasp = owaspModule.default ?? owaspModule;
const rule = (name) => owasp.rules[name];

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** Operations whose `security` (or the document's) names a scheme: those read a credential, so may answer 401. */
const readsCredentials = (operation, document) => {
  const security = operation.security ?? document.security ?? [];
  return security.some((requirement) => Object.keys(requirement ?? {}).length > 0);
};

/** The response keys that document a status: a 400 may be a 422 or 4XX; a 500 may be `default`. */
const ALSO_DOCUMENTED_BY = { 400: ['400', '422', '4XX'], 500: ['500', '5XX', 'default'] };

/** Reports a required response status an operation lacks, when `applies(operation, document)`. */
const requiresResponse = createRulesetFunction(
  {
    input: { type: 'object' },
    options: {
      type: 'object',
      properties: { status: { type: 'string' }, when: { type: 'string' } },
      required: ['status', 'when'],
      additionalProperties: false,
    },
  },
  function requiresResponse(pathItem, options, context) {
    const document = context.document.data;
    const problems = [];
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (!operation || typeof operation !== 'object') continue;
      const applies =
        options.when === 'always' ||
        (options.when === 'reads-credentials' ? readsCredentials(operation, document) : hasInput(operation, pathItem));
      const statuses = Object.keys(operation.responses ?? {});
      const present = statuses.some((s) => (ALSO_DOCUMENTED_BY[options.status] ?? [options.status]).includes(s));
      if (applies && !present)
        problems.push({
          message: `Operation is missing responses[${options.status}]`,
          path: [...context.path, method, 'responses'],
        });
    }
    return problems;
  },
);

/**
 * A pattern bounds a string's length when it is anchored at both ends and repeats nothing
 * without an upper bound (no `*`, `+` or `{n,}`): `^[A-Z]{3}$`, `^ord_[0-9A-Za-z]{6,40}$`.
 */
const patternBoundsLength = (pattern) =>
  typeof pattern === 'string' &&
  pattern.startsWith('^') &&
  pattern.endsWith('$') &&
  !/[*+]|\{\d+,\}/.test(pattern.replace(/\\./g, ''));

/** OWASP's string-limit, also satisfied by a length-bounding pattern or a fixed-length format. */
const stringBounded = createRulesetFunction(
  { input: { type: 'object' }, options: null },
  function stringBounded(schema) {
    const bounded =
      schema.maxLength !== undefined ||
      schema.enum !== undefined ||
      schema.const !== undefined ||
      patternBoundsLength(schema.pattern) ||
      schema.format === 'date';
    return bounded
      ? []
      : [
          {
            message: 'Schema of type string must specify maxLength, enum, const, or a pattern that bounds its length.',
          },
        ];
  },
);

/**
 * Operations that take input a client can get wrong: a body, or query and header parameters. A
 * path parameter alone is a name looked up (an unknown one is 404), not input validated.
 */
const hasInput = (operation, pathItem) =>
  Boolean(operation.requestBody) ||
  [...(operation.parameters ?? []), ...(pathItem.parameters ?? [])].some((parameter) => parameter?.in !== 'path');

/** What a client sends: parameter schemas and request bodies (followed into components). */
const REQUEST_SIDE = [
  ['$.paths[*][*].parameters', 'schema'],
  ['$.paths[*].parameters', 'schema'],
  ['$.paths[*][*].requestBody.content', 'schema'],
];
const ofType = (type) =>
  `@.type=="${type}" || (@.type && @.type.constructor.name === "Array" && @.type.includes("${type}"))`;
const requestSide = (type) =>
  REQUEST_SIDE.flatMap(([holder, member]) => [
    // the schema itself, and every schema inside it
    `${holder}[?(@ && @.${member} && (${ofType(type).replaceAll('@.type', `@.${member}.type`)}))].${member}`,
    `${holder}[*].${member}..[?(@ && (${ofType(type)}))]`,
  ]);

export default {
  extends: [
    [oas, 'recommended'],
    [owasp, 'recommended'],
  ],
  rules: {
    // Limits matter on what a client sends, which the server must bound (every request limit is
    // in the schema and enforced). On answers they would promise maxima the additive-only public
    // surface may outgrow; clients read answers without relying on such bounds.
    // A pattern such as ^[A-Z]{3}$ bounds a string as surely as maxLength does.
    'owasp:api4:2023-string-limit': {
      ...rule('owasp:api4:2023-string-limit'),
      given: requestSide('string'),
      then: { function: stringBounded },
    },
    'owasp:api4:2023-integer-limit': { ...rule('owasp:api4:2023-integer-limit'), given: requestSide('integer') },
    'owasp:api4:2023-array-limit': { ...rule('owasp:api4:2023-array-limit'), given: requestSide('array') },
    // Free text (names, queries, messages, descriptions) has no format or pattern; its bound is
    // maxLength, which string-limit checks.
    'owasp:api4:2023-string-restricted': 'off',
    // Integers are JSON numbers; where a range matters it is minimum/maximum (integer-limit on
    // requests; money is integer cents up to 2^53 - 1). int32/int64 add nothing a JSON client uses.
    'owasp:api4:2023-integer-format': 'off',
    // The published rule demands exactly one of the header families (oneOf); every answer here
    // carries both the IETF draft fields and the older RateLimit-Limit trio, which it then
    // refuses. The same check with anyOf: at least one family.
    'owasp:api4:2023-rate-limit': {
      ...rule('owasp:api4:2023-rate-limit'),
      then: {
        field: 'headers',
        function: rule('owasp:api4:2023-rate-limit').then.function,
        functionOptions: {
          schema: {
            type: 'object',
            anyOf: [
              { required: ['RateLimit'] },
              { required: ['RateLimit-Limit', 'RateLimit-Reset'] },
              { required: ['X-RateLimit-Limit'] },
              { required: ['X-Rate-Limit-Limit'] },
            ],
          },
        },
      },
    },
    // CORS is declared per path item (`x-cors` of the public document, and its root `x-cors`):
    // the answer depends on the request's Origin and method, not on the response. The partner and
    // operator APIs answer no browser on purpose (their secrets never belong in one).
    'owasp:api8:2023-define-cors-origin': 'off',
    // 401 is an answer of operations that read a credential; the public reads and documents read
    // none (a token sent to them is ignored), so they never answer 401.
    'owasp:api8:2023-define-error-responses-401': {
      description: 'Every operation that reads a credential documents its 401.',
      severity: 'warn',
      given: '$.paths[*]',
      then: { function: requiresResponse, functionOptions: { status: '401', when: 'reads-credentials' } },
    },
    // Redirect-only operations (the referral link, the checkout cancel form) document their 500
    // as `default`, which Redocly's operation-2xx-response needs there; `default` documents it.
    'owasp:api8:2023-define-error-responses-500': {
      description: 'Every operation documents its 500 (as 500, 5XX or default).',
      severity: 'warn',
      given: '$.paths[*]',
      then: { function: requiresResponse, functionOptions: { status: '500', when: 'always' } },
    },
    // A validation error is an answer of operations that take input; the documents without
    // parameters or body have nothing to refuse.
    'owasp:api8:2023-define-error-validation': {
      description: 'Every operation with parameters or a body documents its 400 (or 422).',
      severity: 'warn',
      given: '$.paths[*]',
      then: { function: requiresResponse, functionOptions: { status: '400', when: 'has-input' } },
    },
  },
  overrides: [
    {
      // The jCard is a 2020-12 tuple: its two members are `prefixItems` and `maxItems: 2` ends it,
      // so an `items` would only repeat "nothing more"; and any `items` beside prefixItems makes
      // hey-api's zod plugin (0.99, the generator matrix) require a third member, which no real
      // jCard has. The rule predates prefixItems.
      files: ['generated/public.openapi.json#/components/schemas/RdapEntity/properties/vcardArray'],
      rules: { 'array-items': 'off' },
    },
    {
      // A batch entry's `op` is checked per entry: an unknown one, however long, fails that entry
      // alone (its own 400), never the whole batch (seed: "A bad batch entry returns its own 400
      // without failing the others"), so it carries no maxLength the validator would apply to
      // the whole request. The 1 MiB body limit bounds it.
      files: ['generated/public.openapi.json#/components/schemas/BatchOperation/properties/op'],
      rules: { 'owasp:api4:2023-string-limit': 'off' },
    },
    {
      // The public surface needs no authentication (seed: "The public REST API and MCP tools need
      // no authentication"): reads, WHOIS by POST, open dynamic registration (RFC 7591), the
      // token endpoint of public clients, and the hosted forms, which carry their own signed
      // page token and CSRF token instead of a security scheme.
      files: ['generated/public.openapi.json'],
      rules: { 'owasp:api2:2023-read-restricted': 'off', 'owasp:api2:2023-write-restricted': 'off' },
    },
    {
      // The operator API is one deployment's back office behind ADMIN_TOKEN, off unless
      // configured; it is not rate limited (rate limits are per partner credential and per public
      // client: the partner and public documents' x-rate-limit-classes).
      files: ['generated/admin.openapi.json'],
      rules: { 'owasp:api4:2023-rate-limit': 'off', 'owasp:api4:2023-rate-limit-responses-429': 'off' },
    },
    {
      // The health probes are exempt from the rate limit on purpose (x-rate-limit: none; their
      // descriptions): a load balancer probing every few seconds must never be refused 429, nor
      // take calls from a client's window.
      files: [
        'generated/public.openapi.json#/paths/~1healthz',
        'generated/public.openapi.json#/paths/~1readyz',
        'generated/public.openapi.json#/components/responses/MisdirectedProbe',
      ],
      rules: { 'owasp:api4:2023-rate-limit': 'off', 'owasp:api4:2023-rate-limit-responses-429': 'off' },
    },
    {
      // A partner 401 and 413 come before the credential is identified (the body is read and the
      // signature checked first), so they carry no rate-limit headers (the partner document's
      // Unauthorized and PayloadTooLarge responses say so).
      files: [
        'generated/partner.openapi.json#/components/responses/Unauthorized',
        'generated/partner.openapi.json#/components/responses/PayloadTooLarge',
      ],
      rules: { 'owasp:api4:2023-rate-limit': 'off' },
    },
    {
      // The partner API v1 is frozen (the breaking-change gate of npm run contract:diff): a
      // limit added to a request is a breaking change there, even where nothing accepted today
      // would be refused. Its date filters (RFC 3339, validated by format) and its prices in
      // integer cents (a price beyond 2^53 - 1 cannot match any listing and is refused as
      // price_mismatch) get explicit bounds with /api/partner/v2.
      files: [
        'generated/partner.openapi.json#/components/parameters/From',
        'generated/partner.openapi.json#/components/parameters/To',
        'generated/partner.openapi.json#/components/schemas/OrderRequest/properties/expected_price',
        'generated/partner.openapi.json#/components/schemas/CheckoutSessionRequest/properties/expected_price',
        'generated/partner.openapi.json#/components/schemas/BrokerageCaseRequest/properties/budget',
      ],
      rules: { 'owasp:api4:2023-string-limit': 'off', 'owasp:api4:2023-integer-limit': 'off' },
    },
    {
      // The first server of each document is the local sandbox (`npm start`), on loopback: plain
      // http never leaves the machine. Every deployment is https (the second server).
      files: [
        'generated/partner.openapi.json#/servers/0/url',
        'generated/public.openapi.json#/servers/0/url',
        'generated/admin.openapi.json#/servers/0/url',
      ],
      rules: { 'owasp:api8:2023-no-server-http': 'off' },
    },
    {
      // The brokerage progress page is a capability URL by design (the operation's description:
      // a no-login page behind an unguessable token that the buyer follows from an email).
      files: ['generated/public.openapi.json#/paths/~1brokerage~1progress~1%7Btoken%7D'],
      rules: { 'owasp:api2:2023-no-credentials-in-url': 'off' },
    },
  ],
};
