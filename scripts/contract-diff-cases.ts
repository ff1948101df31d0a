// The breaking-change gate's own case list: one edit of the real bundled documents per case, and
// the verdict the gate must give. Each case is anchored on the oasdiff rule that names the same
// kind of change (its ERR-level rules are what a conforming client trips on), or, for the
// contract's own `x-` extensions, on the extension it edits: every extension of the three
// documents has at least one case (test/contract/gate-cases.test.ts checks it and runs the list).
import type { ApiName } from './contract.ts';

// The documents are plain JSON; the edits reach into them freely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

export interface GateCase {
  /** oasdiff's rule id, or `x-…` for an extension of this contract. */
  anchor: string;
  api: ApiName;
  what: string;
  edit: (doc: Doc) => void;
  breaking: boolean;
}

const P = '/api/partner/v1';
const op = (doc: Doc, path: string, method = 'get'): Doc => doc.paths[path][method];
const schemas = (doc: Doc): Doc => doc.components.schemas;
const drop = <T>(list: T[], value: T) => list.filter((v) => v !== value);

export const CASES: GateCase[] = [
  // --- oasdiff's catalogue: paths and operations
  {
    anchor: 'api-path-removed-without-deprecation',
    api: 'partner',
    what: 'a path removed',
    edit: (d) => delete d.paths[`${P}/pricing`],
    breaking: true,
  },
  {
    anchor: 'api-removed-without-deprecation',
    api: 'public',
    what: 'one method of a path removed',
    edit: (d) => delete d.paths['/api/batch'].get,
    breaking: true,
  },
  {
    anchor: 'endpoint-added',
    api: 'partner',
    what: 'an operation added',
    edit: (d) => {
      d.paths[`${P}/quotes/{quote_id}`] = {
        get: { operationId: 'getQuote', summary: 'A quote', responses: { '200': { description: 'ok' } } },
      };
    },
    breaking: false,
  },
  // --- request parameters
  {
    anchor: 'new-required-request-parameter',
    api: 'partner',
    what: 'a required query parameter added',
    edit: (d) =>
      op(d, `${P}/availability`).parameters.push({
        name: 'tld',
        in: 'query',
        required: true,
        schema: { type: 'string' },
      }),
    breaking: true,
  },
  {
    anchor: 'new-optional-request-parameter',
    api: 'partner',
    what: 'an optional query parameter added',
    edit: (d) => op(d, `${P}/availability`).parameters.push({ name: 'tld', in: 'query', schema: { type: 'string' } }),
    breaking: false,
  },
  {
    anchor: 'request-parameter-became-required',
    api: 'partner',
    what: 'an optional query parameter made required',
    edit: (d) => (op(d, `${P}/orders`).parameters[0].required = true),
    breaking: true,
  },
  {
    anchor: 'request-parameter-max-length-decreased',
    api: 'public',
    what: 'a query parameter maxLength lowered',
    edit: (d) => (op(d, '/api/market/listings').parameters.find((p: Doc) => p.name === 'q').schema.maxLength = 20),
    breaking: true,
  },
  {
    anchor: 'request-parameter-max-length-increased',
    api: 'public',
    what: 'a query parameter maxLength raised',
    edit: (d) => (op(d, '/api/market/listings').parameters.find((p: Doc) => p.name === 'q').schema.maxLength = 300),
    breaking: false,
  },
  {
    anchor: 'request-parameter-max-decreased',
    api: 'partner',
    what: 'a parameter maximum lowered',
    edit: (d) => (d.components.parameters.Limit.schema.maximum = 100),
    breaking: true,
  },
  {
    anchor: 'request-parameter-min-increased',
    api: 'partner',
    what: 'a parameter minimum raised',
    edit: (d) => (d.components.parameters.Limit.schema.minimum = 10),
    breaking: true,
  },
  {
    anchor: 'request-parameter-type-changed',
    api: 'partner',
    what: 'a parameter type changed',
    edit: (d) => (d.components.parameters.Limit.schema = { type: 'string' }),
    breaking: true,
  },
  {
    anchor: 'request-parameter-default-value-changed',
    api: 'public',
    what: 'a query parameter default changed',
    edit: (d) => (d.components.parameters.Limit.schema.default = 50),
    breaking: true,
  },
  {
    anchor: 'request-parameter-default-value-removed',
    api: 'public',
    what: 'a query parameter default removed',
    edit: (d) => delete d.components.parameters.Offset.schema.default,
    breaking: true,
  },
  {
    anchor: 'request-parameter-default-value-added',
    api: 'public',
    what: 'a query parameter default added',
    edit: (d) =>
      (op(d, '/api/market/listings').parameters.find((p: Doc) => p.name === 'tld').schema = {
        type: 'string',
        default: 'com',
      }),
    breaking: true,
  },
  // --- request bodies
  {
    anchor: 'new-required-request-property',
    api: 'partner',
    what: 'a required request member added',
    edit: (d) => {
      schemas(d).QuoteRequest.properties.coupon = { type: 'string' };
      schemas(d).QuoteRequest.required.push('coupon');
    },
    breaking: true,
  },
  {
    anchor: 'request-property-became-required',
    api: 'partner',
    what: 'an optional request member made required',
    edit: (d) => schemas(d).OrderRequest.required.push('quote_id'),
    breaking: true,
  },
  {
    anchor: 'new-optional-request-property',
    api: 'partner',
    what: 'an optional request member added',
    edit: (d) => (schemas(d).QuoteRequest.properties.note = { type: 'string', maxLength: 200 }),
    breaking: false,
  },
  {
    anchor: 'request-property-enum-value-removed',
    api: 'public',
    what: 'a request enum lost a value',
    edit: (d) => (schemas(d).BulkOperationName.enum = drop(schemas(d).BulkOperationName.enum, 'unlock')),
    breaking: true,
  },
  {
    anchor: 'request-body-media-type-removed',
    api: 'partner',
    what: 'the request media type changed',
    edit: (d) => {
      const body = op(d, `${P}/quotes`, 'post').requestBody;
      body.content = { 'application/x-www-form-urlencoded': body.content['application/json'] };
    },
    breaking: true,
  },
  // --- responses
  {
    anchor: 'response-success-status-removed',
    api: 'partner',
    what: 'the success status changed',
    edit: (d) => {
      const r = op(d, `${P}/quotes`, 'post').responses;
      r['201'] = r['200'];
      delete r['200'];
    },
    breaking: true,
  },
  {
    anchor: 'response-required-property-removed',
    api: 'partner',
    what: 'a response member removed',
    edit: (d) => {
      delete schemas(d).Quote.properties.expires_at;
      schemas(d).Quote.required = drop(schemas(d).Quote.required, 'expires_at');
    },
    breaking: true,
  },
  {
    anchor: 'response-required-property-became-not-required',
    api: 'partner',
    what: 'a response member made optional',
    edit: (d) => (schemas(d).Quote.required = drop(schemas(d).Quote.required, 'expires_at')),
    breaking: true,
  },
  {
    anchor: 'response-property-type-changed',
    api: 'partner',
    what: 'a response member type changed',
    edit: (d) => (schemas(d).Quote.properties.price_cents = { type: 'string' }),
    breaking: true,
  },
  {
    anchor: 'request-property-enum-value-removed',
    api: 'partner',
    what: 'a one-value enum written as const (the same single value)',
    edit: (d) => {
      const type = schemas(d).GenericLinkRequest.properties.type;
      type.const = type.enum[0];
      delete type.enum;
    },
    breaking: false,
  },
  {
    anchor: 'request-property-enum-value-removed',
    api: 'partner',
    what: 'a one-value request enum (a discriminator tag) changed its value',
    edit: (d) => (schemas(d).GenericLinkRequest.properties.type.enum = ['home']),
    breaking: true,
  },
  {
    anchor: 'response-property-type-changed',
    api: 'public',
    what: 'an items schema that only annotates added beside prefixItems (constrains nothing)',
    edit: (d) => (schemas(d).RdapEntity.properties.vcardArray.items = { description: 'Either member.' }),
    breaking: false,
  },
  // "Or null" in either spelling (type array, or anyOf with {type: 'null'}): a rewrite between them
  // means the same; a change inside the anyOf form is still seen (scripts/contract-diff-spelling.ts).
  {
    anchor: 'response-property-type-changed',
    api: 'partner',
    what: 'a nullable enum rewritten from anyOf [enum, null] to a type array (same values)',
    edit: (d) => {
      const reason = schemas(d).BrokerageEligibility.properties.reason;
      const [member] = reason.anyOf;
      schemas(d).BrokerageEligibility.properties.reason = {
        description: reason.description,
        type: [member.type, 'null'],
        enum: [...member.enum, null],
      };
    },
    breaking: false,
  },
  {
    anchor: 'response-property-enum-value-removed',
    api: 'partner',
    what: 'a nullable response enum (anyOf with null) lost a value',
    edit: (d) => {
      const [member] = schemas(d).BrokerageEligibility.properties.reason.anyOf;
      member.enum = drop(member.enum, 'open_case');
    },
    breaking: true,
  },
  {
    anchor: 'response-property-type-changed',
    api: 'partner',
    what: 'the non-null member of a nullable response member (anyOf with null) changed type',
    edit: (d) => {
      const [member] = schemas(d).BrokerageEligibility.properties.reason.anyOf;
      member.type = 'integer';
      delete member.enum;
    },
    breaking: true,
  },
  {
    anchor: 'response-optional-property-added',
    api: 'partner',
    what: 'a response member added',
    edit: (d) => (schemas(d).Quote.properties.tax_cents = { type: 'integer', minimum: 0 }),
    breaking: false,
  },
  {
    anchor: 'response-header-became-optional',
    api: 'partner',
    what: 'a required response header made optional',
    edit: (d) => (d.components.headers['X-Request-Id'].required = false),
    breaking: true,
  },
  {
    anchor: 'required-response-header-removed',
    api: 'partner',
    what: 'a required response header removed',
    edit: (d) => {
      for (const r of Object.values(op(d, `${P}/quotes`, 'post').responses as Doc))
        delete (r as Doc).headers?.['X-Request-Id'];
    },
    breaking: true,
  },
  {
    anchor: 'response-media-type-removed',
    api: 'partner',
    what: 'the response media type changed',
    edit: (d) => {
      const r = op(d, `${P}/quotes`, 'post').responses['200'];
      r.content = { 'application/xml': r.content['application/json'] };
    },
    breaking: true,
  },
  // --- webhooks: the service is the client, the partner's receiver breaks
  {
    anchor: 'required-response-header-removed (webhook: X-Service-Event-Id)',
    api: 'partner',
    what: "a webhook's header removed",
    edit: (d) => {
      const post = d.webhooks['order.recorded'].post;
      post.parameters = post.parameters.filter((p: Doc) => !String(p.$ref).endsWith('/WebhookEventId'));
    },
    breaking: true,
  },
  // --- this contract's extensions
  {
    anchor: 'x-scopes',
    api: 'partner',
    what: 'a scope added to an operation',
    edit: (d) => op(d, `${P}/orders`)['x-scopes'].push('report'),
    breaking: true,
  },
  {
    anchor: 'x-scopes',
    api: 'partner',
    what: 'an operation no longer needs a scope',
    edit: (d) => {
      delete op(d, `${P}/orders`)['x-scopes'];
    },
    breaking: false,
  },
  {
    anchor: 'x-idempotency',
    api: 'partner',
    what: 'an Idempotency-Key rule stated on an operation that had none',
    edit: (d) =>
      (op(d, `${P}/quotes`, 'post')['x-idempotency'] = structuredClone(op(d, `${P}/orders`, 'post')['x-idempotency'])),
    breaking: true,
  },
  {
    anchor: 'x-scopes',
    api: 'partner',
    what: 'a scope replaced',
    edit: (d) => (op(d, `${P}/orders`)['x-scopes'] = ['report']),
    breaking: true,
  },
  {
    anchor: 'x-rate-limit',
    api: 'partner',
    what: 'an operation moved to a class with a lower quota',
    edit: (d) => (op(d, `${P}/availability`)['x-rate-limit'] = 'write'),
    breaking: true,
  },
  {
    anchor: 'x-rate-limit',
    api: 'partner',
    what: 'an operation moved to a class with a higher quota',
    edit: (d) => (op(d, `${P}/orders`)['x-rate-limit'] = 'search'),
    breaking: false,
  },
  {
    anchor: 'x-rate-limit-classes',
    api: 'partner',
    what: 'a class quota lowered',
    edit: (d) => (d['x-rate-limit-classes'].search.quota = 30),
    breaking: true,
  },
  {
    anchor: 'x-rate-limit-classes',
    api: 'public',
    what: 'a class window lengthened',
    edit: (d) => (d['x-rate-limit-classes'].public['window-seconds'] = 120),
    breaking: true,
  },
  {
    anchor: 'x-rate-limit-classes',
    api: 'partner',
    what: 'a class quota raised',
    edit: (d) => (d['x-rate-limit-classes'].write.quota = 40),
    breaking: false,
  },
  {
    anchor: 'x-idempotency',
    api: 'partner',
    what: 'idempotency keys kept for less time',
    edit: (d) => (op(d, `${P}/orders`, 'post')['x-idempotency']['retention-hours'] = 1),
    breaking: true,
  },
  {
    anchor: 'x-idempotency',
    api: 'partner',
    what: 'the longest idempotency key shortened',
    edit: (d) => (op(d, `${P}/orders`, 'post')['x-idempotency']['key-length'] = [1, 64]),
    breaking: true,
  },
  {
    anchor: 'x-idempotency',
    api: 'partner',
    what: 'idempotency keys may be longer',
    edit: (d) => (op(d, `${P}/orders`, 'post')['x-idempotency']['key-length'] = [1, 512]),
    breaking: false,
  },
  {
    anchor: 'x-idempotency',
    api: 'partner',
    what: 'a 4xx outcome no longer stored',
    edit: (d) => {
      const x = op(d, `${P}/orders`, 'post')['x-idempotency'];
      x.stored = drop(x.stored, '422 price_mismatch');
    },
    breaking: true,
  },
  {
    anchor: 'x-quote-validity-seconds',
    api: 'partner',
    what: 'quotes valid for less time',
    edit: (d) => (op(d, `${P}/quotes`, 'post')['x-quote-validity-seconds'] = 300),
    breaking: true,
  },
  {
    anchor: 'x-quote-reservation',
    api: 'partner',
    what: 'a longer cool-down before a partner may reserve a domain again',
    edit: (d) => (op(d, `${P}/quotes`, 'post')['x-quote-reservation']['cooldown-seconds'] = 1200),
    breaking: true,
  },
  {
    anchor: 'x-quote-reservation',
    api: 'partner',
    what: 'a shorter cool-down',
    edit: (d) => (op(d, `${P}/quotes`, 'post')['x-quote-reservation']['cooldown-seconds'] = 300),
    breaking: false,
  },
  {
    anchor: 'x-quote-reservation',
    api: 'partner',
    what: 'a reservation capped shorter',
    edit: (d) => (op(d, `${P}/quotes`, 'post')['x-quote-reservation']['max-seconds'] = 300),
    breaking: true,
  },
  {
    anchor: 'x-session-validity-seconds',
    api: 'partner',
    what: 'checkout sessions valid for less time',
    edit: (d) => (op(d, `${P}/checkout-session`, 'post')['x-session-validity-seconds'] = 86400),
    breaking: true,
  },
  {
    anchor: 'x-attribution-window-days',
    api: 'partner',
    what: 'a shorter attribution window',
    edit: (d) => (op(d, `${P}/links`, 'post')['x-attribution-window-days'] = 7),
    breaking: true,
  },
  {
    anchor: 'x-url-rules',
    api: 'partner',
    what: 'the wording of a URL rule changed',
    edit: (d) => (d.paths['/api/partner/webhooks'].put['x-url-rules'].live += ' Reworded.'),
    breaking: false,
  },
  {
    anchor: 'x-url-rule',
    api: 'partner',
    what: 'http on loopback no longer accepted in sandbox',
    edit: (d) => (schemas(d).BuyerRedirectUrl['x-url-rule'].schemes.sandbox = ['https']),
    breaking: true,
  },
  {
    anchor: 'x-cors',
    api: 'public',
    what: 'a path narrowed from any origin to allowed origins',
    edit: (d) => (d.paths['/api/domain/search']['x-cors'] = 'allowed-origins'),
    breaking: true,
  },
  {
    anchor: 'x-cors',
    api: 'public',
    what: 'a path loses CORS',
    edit: (d) => delete d.paths['/api/domain/search']['x-cors'],
    breaking: true,
  },
  {
    anchor: 'x-cors',
    api: 'public',
    what: 'an exposed header no longer exposed',
    edit: (d) => (d['x-cors']['expose-headers'] = drop(d['x-cors']['expose-headers'], 'Retry-After')),
    breaking: true,
  },
  {
    anchor: 'x-eov-allow-unknown-query-parameters',
    api: 'public',
    what: 'unknown query parameters now refused where they were accepted',
    edit: (d) => delete d.paths['/r/{code}'].get['x-eov-allow-unknown-query-parameters'],
    breaking: true,
  },
  {
    anchor: 'x-error-format',
    api: 'public',
    what: 'an error format changed',
    edit: (d) => (op(d, '/api/oauth/register', 'post')['x-error-format'] = 'error-schema'),
    breaking: true,
  },
  {
    anchor: 'x-form-action',
    api: 'public',
    what: 'a form action target removed',
    edit: (d) => (op(d, '/checkout')['x-form-action'] = drop(op(d, '/checkout')['x-form-action'], 'cancel_url')),
    breaking: true,
  },
  {
    anchor: 'x-oauth-errors',
    api: 'public',
    what: 'a documented OAuth error removed',
    edit: (d) => {
      const r = op(d, '/api/oauth/register', 'post').responses['400'];
      r['x-oauth-errors'] = drop(r['x-oauth-errors'], 'invalid_client_metadata');
    },
    breaking: true,
  },
  {
    anchor: 'x-oauth-errors',
    api: 'public',
    what: 'a documented OAuth error added',
    edit: (d) =>
      op(d, '/api/oauth/register', 'post').responses['400']['x-oauth-errors'].push('invalid_software_statement'),
    breaking: false,
  },
  {
    anchor: 'x-pkce',
    api: 'public',
    what: 'PKCE S256 no longer offered',
    edit: (d) => (op(d, '/oauth/authorize')['x-pkce'].methods = ['S512']),
    breaking: true,
  },
  {
    anchor: 'x-pkce',
    api: 'public',
    what: 'PKCE no longer required',
    edit: (d) => (op(d, '/oauth/authorize')['x-pkce'].required = false),
    breaking: true,
  },
  {
    anchor: 'x-redirect-uri-matching',
    api: 'public',
    what: 'the redirect URI rule reworded',
    edit: (d) => (op(d, '/oauth/authorize')['x-redirect-uri-matching'] += ' (reworded)'),
    breaking: false,
  },
  {
    anchor: 'x-signin-throttle',
    api: 'public',
    what: 'fewer free sign-in failures per account',
    edit: (d) => (op(d, '/oauth/authorize', 'post')['x-signin-throttle']['per-account']['free-failures'] = 3),
    breaking: true,
  },
  {
    anchor: 'x-token-lifetimes',
    api: 'public',
    what: 'a shorter access token lifetime',
    edit: (d) => (op(d, '/api/oauth/token', 'post')['x-token-lifetimes'].access_token_seconds = 600),
    breaking: true,
  },
  {
    anchor: 'x-token-lifetimes',
    api: 'public',
    what: 'a longer refresh token lifetime',
    edit: (d) => (op(d, '/api/oauth/token', 'post')['x-token-lifetimes'].refresh_token_seconds = 5184000),
    breaking: false,
  },
  {
    anchor: 'x-token-rules',
    api: 'public',
    what: 'a token rule reworded',
    edit: (d) => (op(d, '/api/oauth/token', 'post')['x-token-rules'].refresh_token += ' Reworded.'),
    breaking: false,
  },
  {
    anchor: 'x-mcp-protocol-versions',
    api: 'public',
    what: 'an MCP revision no longer negotiated',
    edit: (d) =>
      (op(d, '/mcp', 'post')['x-mcp-protocol-versions'] = drop(
        op(d, '/mcp', 'post')['x-mcp-protocol-versions'],
        '2025-03-26',
      )),
    breaking: true,
  },
  {
    anchor: 'x-mcp-tools',
    api: 'public',
    what: 'an MCP tool removed',
    edit: (d) =>
      (op(d, '/mcp', 'post')['x-mcp-tools'] = op(d, '/mcp', 'post')['x-mcp-tools'].filter(
        (t: Doc) => t.name !== 'whois_lookup',
      )),
    breaking: true,
  },
  {
    anchor: 'x-mcp-tools',
    api: 'public',
    what: "an MCP tool's output changed",
    edit: (d) => (op(d, '/mcp', 'post')['x-mcp-tools'][0].output = 'SomethingElse'),
    breaking: true,
  },
  {
    anchor: 'x-transitions',
    api: 'partner',
    what: 'an order move removed',
    edit: (d) =>
      (schemas(d).OrderStatus['x-transitions'].EXTERNALLY_PAID = drop(
        schemas(d).OrderStatus['x-transitions'].EXTERNALLY_PAID,
        'REFUNDED',
      )),
    breaking: true,
  },
  {
    anchor: 'x-transitions',
    api: 'admin',
    what: 'an operator action allowed from fewer states (admin: reported)',
    edit: (d) => (op(d, '/api/admin/v1/orders/{public_id}/{action}', 'post')['x-transitions'].hold.from = ['PAID']),
    breaking: true,
  },
  {
    anchor: 'x-error-codes',
    api: 'partner',
    what: 'a documented error code removed from a status',
    edit: (d) =>
      (d.components.responses.BadRequest['x-error-codes'] = drop(
        d.components.responses.BadRequest['x-error-codes'],
        'invalid_cursor',
      )),
    breaking: true,
  },
  {
    anchor: 'x-error-codes',
    api: 'partner',
    what: 'an error code added to a status',
    edit: (d) => d.components.responses.BadRequest['x-error-codes'].push('invalid_quote'),
    breaking: false,
  },
  {
    anchor: 'x-status-of-code',
    api: 'partner',
    what: "an error code's status changed",
    edit: (d) => (schemas(d).ErrorCode['x-status-of-code'].missing_idempotency_key = 422),
    breaking: true,
  },
  {
    anchor: 'x-delivered',
    api: 'partner',
    what: 'an event kind no longer delivered',
    edit: (d) => (schemas(d).EventType['x-delivered'] = drop(schemas(d).EventType['x-delivered'], 'order.settled')),
    breaking: true,
  },
  {
    anchor: 'x-history-only',
    api: 'partner',
    what: 'a history kind no longer recorded',
    edit: (d) => (schemas(d).EventType['x-history-only'] = drop(schemas(d).EventType['x-history-only'], 'order.held')),
    breaking: true,
  },
  {
    anchor: 'x-final-states',
    api: 'partner',
    what: 'a final state no longer final',
    edit: (d) => (schemas(d).OrderStatus['x-final-states'] = drop(schemas(d).OrderStatus['x-final-states'], 'SETTLED')),
    breaking: true,
  },
  {
    anchor: 'x-balance-effect',
    api: 'partner',
    what: "a ledger status's effect on the balance changed",
    edit: (d) => (schemas(d).CommissionStatus['x-balance-effect'].pending = 'credit'),
    breaking: true,
  },
  {
    anchor: 'x-prefix-by-environment',
    api: 'admin',
    what: 'a key id prefix changed (admin: reported)',
    edit: (d) => (schemas(d).KeyId['x-prefix-by-environment'].sandbox = 'pk_sbx_'),
    breaking: true,
  },
  {
    anchor: 'x-signing',
    api: 'partner',
    what: 'a shorter timestamp skew',
    edit: (d) => (d['x-signing']['timestamp-skew-seconds'] = 120),
    breaking: true,
  },
  {
    anchor: 'x-signing',
    api: 'partner',
    what: 'the canonical string reordered',
    edit: (d) => d['x-signing']['canonical-string'].reverse(),
    breaking: true,
  },
  {
    anchor: 'x-signing',
    api: 'partner',
    what: 'the signature algorithm changed',
    edit: (d) => (d['x-signing'].algorithm = 'HMAC-SHA512'),
    breaking: true,
  },
  {
    anchor: 'x-webhook-delivery',
    api: 'partner',
    what: 'receivers must answer sooner',
    edit: (d) => (d['x-webhook-delivery']['timeout-seconds'] = 3),
    breaking: true,
  },
  {
    anchor: 'x-webhook-delivery',
    api: 'partner',
    what: 'a delivery header no longer sent',
    edit: (d) => (d['x-webhook-delivery'].headers = drop(d['x-webhook-delivery'].headers, 'X-Service-Event-Id')),
    breaking: true,
  },
  {
    anchor: 'x-webhook-delivery',
    api: 'partner',
    what: 'a retry sent sooner',
    edit: (d) => (d['x-webhook-delivery']['retry-schedule-seconds'][0] = 5),
    breaking: false,
  },
  {
    anchor: 'x-body-limits',
    api: 'public',
    what: 'a smaller body limit',
    edit: (d) => (d['x-body-limits']['max-bytes'] = 65536),
    breaking: true,
  },
  {
    anchor: 'x-body-limits',
    api: 'partner',
    what: 'a larger nesting limit',
    edit: (d) => (d['x-body-limits'].json['max-depth'] = 64),
    breaking: false,
  },
  {
    anchor: 'x-unknown-query-parameters',
    api: 'partner',
    what: 'unknown query parameters refused with another status',
    edit: (d) => (d['x-unknown-query-parameters'].refusal.status = 422),
    breaking: true,
  },
  {
    anchor: 'x-head',
    api: 'partner',
    what: 'HEAD no longer answered as GET',
    edit: (d) => (d['x-head']['answered-as'] = 'none'),
    breaking: true,
  },
  {
    anchor: 'x-request-target',
    api: 'public',
    what: 'absolute-form targets refused with another status',
    edit: (d) => (d['x-request-target'].refusal.status = 421),
    breaking: true,
  },
  {
    anchor: 'x-single-headers',
    api: 'public',
    what: 'one more header refused when repeated',
    edit: (d) => d['x-single-headers'].headers.push('Accept'),
    breaking: true,
  },
  {
    anchor: 'x-single-headers',
    api: 'public',
    what: 'a header no longer refused when repeated',
    edit: (d) =>
      (d['x-single-headers'].headers = d['x-single-headers'].headers.filter((h: string) => h !== 'Authorization')),
    breaking: false,
  },
  {
    anchor: 'x-protocol-refusals',
    api: 'partner',
    what: 'HTTP/2 request lines refused with another code',
    edit: (d) => (d['x-protocol-refusals']['http-version'].code = 'validation_error'),
    breaking: true,
  },
  {
    anchor: 'x-protocol-refusals',
    api: 'public',
    what: 'the wording of the parser refusals changed',
    edit: (d) => (d['x-protocol-refusals']['malformed-message'].when += ' (and a few more)'),
    breaking: false,
  },
  {
    anchor: 'x-trusted-hosts',
    api: 'public',
    what: 'a trusted host kind removed',
    edit: (d) => (d['x-trusted-hosts']['without-base-url'] = d['x-trusted-hosts']['without-base-url'].slice(1)),
    breaking: true,
  },
  {
    anchor: 'x-check-order',
    api: 'admin',
    what: 'the admin check order changed (admin: reported)',
    edit: (d) => d['x-check-order'].reverse(),
    breaking: true,
  },
  {
    anchor: 'x-scope-definitions',
    api: 'partner',
    what: 'a scope no longer defined',
    edit: (d) => delete d['x-scope-definitions'].refer,
    breaking: true,
  },
  {
    anchor: 'x-security-headers',
    api: 'public',
    what: 'a browser header changed (not a client promise)',
    edit: (d) => (d['x-security-headers']['https-deployments']['Strict-Transport-Security'] = 'max-age=63072000'),
    breaking: false,
  },
  {
    anchor: 'x-commission-defaults',
    api: 'partner',
    what: 'commission defaults reworded (business terms)',
    edit: (d) => (d['x-commission-defaults'].description += ' Reworded.'),
    breaking: false,
  },
  {
    anchor: 'x-failure-classes',
    api: 'partner',
    what: 'a delivery failure class no longer reported',
    edit: (d) => delete schemas(d).WebhookDelivery.properties.last_error['x-failure-classes'].timeout,
    breaking: true,
  },
  {
    anchor: 'x-accepted-breaking-change',
    api: 'partner',
    what: 'an acceptance reworded (not a promise)',
    edit: (d) => (schemas(d).Cents['x-accepted-breaking-change'].reason += ' Reworded.'),
    breaking: false,
  },
  {
    anchor: 'x-internal',
    api: 'partner',
    what: 'a server marked internal (not a promise)',
    edit: (d) => (d.servers[0]['x-internal'] = true),
    breaking: false,
  },
];
