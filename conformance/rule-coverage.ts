// Which requirement exercises each rule of the contract: every `x-` extension of the three
// documents and every sentence of the seed documents with a MUST-like meaning. A rule no
// requirement exercises says why: `gap` (not exercised yet) or `excluded` (on purpose). Data only:
// `--list` prints it (requirements.ts `coverageListing`), the README's "Rule coverage" section is
// generated from it, and test/conformance/rule-coverage.test.ts keeps it complete (every `x-`
// name present in the documents is here; every ID named is a live requirement).

export type Api = 'partner' | 'public' | 'admin';

interface Covered {
  /** The requirements that exercise the rule. Empty only with `gap` or `excluded`. */
  requirements: string[];
  /** Nothing exercises the rule yet: what is missing. */
  gap?: string;
  /** Nothing exercises the rule, on purpose: why. */
  excluded?: string;
}

export interface ExtensionRule extends Covered {
  api: Api;
  /** The extension's name, wherever it appears in that document. */
  extension: string;
}

export interface SeedRule extends Covered {
  seed: 'partner' | 'public';
  /** The seed's section path, as in a check's `seed:` rule. */
  section: string;
  /** The sentence (shortened), in the seed's words. */
  rule: string;
}

const OPERATOR =
  "the operator API is the operator's own tool, not a surface the kit certifies: the kit calls it to mint credentials and move orders (its x-transitions are checked through the lifecycles); the reference server's own tests check the rest";
const GATE =
  'a note to the contract breaking-change gate (scripts/), about releases of the contract: nothing a deployment does';
const INTERNAL = "marks the document's servers meant for the project's own tooling: nothing a deployment does";
const HOSTS =
  "Node's fetch cannot send a foreign Host header, and a deployment behind PUBLIC_BASE_URL ignores it by design; the reference server's tests check it";

const AUTH_PROTOCOL = [
  'partner.auth.canonical-query.accepted',
  'partner.auth.canonical-query.mistake.unsorted-pairs',
  'partner.auth.canonical-query.mistake.lowercase-hex',
  'partner.auth.canonical-query.mistake.reserved-literal',
  'partner.auth.canonical-query.mistake.utf16-order',
  'partner.auth.canonical-query.mistake.space-as-plus',
  'partner.auth.canonical-query.mistake.signed-as-sent',
  'partner.auth.canonical-query.malformed-escape',
  'partner.auth.signature.key-id-as-secret',
  'partner.auth.signature.body-changed',
  'partner.auth.signature.raw-body-bytes',
  'partner.auth.skew.within-window',
  'partner.auth.skew.beyond-window',
  'partner.auth.skew.malformed',
  'partner.auth.skew.past-edge',
  'partner.auth.skew.future-edge',
  'partner.auth.nonce.reuse',
  'partner.auth.nonce.identical-request',
  'partner.auth.nonce.recorded-after-signature',
  'partner.auth.nonce.per-key-id',
  'partner.auth.nonce.after-pause',
  'partner.auth.nonce.window-end',
  'partner.auth.nonce.length-bounds',
  'partner.errors.check-order',
  'partner.http.head.signed-as-head',
  'partner.http.single-headers',
  'partner.http.request-target',
];

export const EXTENSION_RULES: ExtensionRule[] = [
  // The partner document
  { api: 'partner', extension: 'x-signing', requirements: AUTH_PROTOCOL },
  { api: 'partner', extension: 'x-scopes', requirements: ['partner.authz.scope.every-operation'] },
  {
    api: 'partner',
    extension: 'x-scope-definitions',
    requirements: ['partner.authz.scope.every-operation', 'partner.authz.scope.affiliate'],
  },
  {
    api: 'partner',
    extension: 'x-rate-limit',
    requirements: [
      'partner.headers.rate-limit.per-class',
      'partner.headers.rate-limit.separate-classes',
      'partner.errors.rate-limited',
    ],
  },
  {
    api: 'partner',
    extension: 'x-rate-limit-classes',
    requirements: ['partner.headers.rate-limit.per-class', 'partner.headers.rate-limit.429'],
  },
  {
    api: 'partner',
    extension: 'x-quote-validity-seconds',
    requirements: ['partner.errors.quote-expired', 'partner.lifecycle.expiry.test-clock'],
  },
  {
    api: 'partner',
    extension: 'x-quote-reservation',
    requirements: [
      'partner.quotes.reservation.no-extension',
      'partner.quotes.reservation.cooldown',
      'partner.quotes.reservation.one-at-a-time',
      'partner.quotes.reservation.against-an-order',
      'partner.quotes.reservation.against-a-checkout',
    ],
  },
  { api: 'partner', extension: 'x-session-validity-seconds', requirements: ['partner.lifecycle.expiry.test-clock'] },
  {
    api: 'partner',
    extension: 'x-idempotency',
    requirements: [
      'partner.orders.idempotency.replay',
      'partner.orders.idempotency.fingerprint',
      'partner.orders.idempotency.conflict',
      'partner.orders.idempotency.concurrent',
      'partner.orders.idempotency.stores-4xx',
      'partner.orders.idempotency.stores-not-found',
      'partner.orders.idempotency.per-credential',
      'partner.orders.idempotency.key-required',
      'partner.orders.idempotency.key-length',
      'partner.authz.idempotency.per-partner',
    ],
  },
  { api: 'partner', extension: 'x-attribution-window-days', requirements: ['partner.referral.attribution-window'] },
  { api: 'partner', extension: 'x-url-rules', requirements: ['partner.webhooks.register'] },
  { api: 'partner', extension: 'x-url-rule', requirements: ['partner.errors.validation-error'] },
  {
    api: 'partner',
    extension: 'x-status-of-code',
    requirements: [
      'partner.errors.auth-codes',
      'partner.errors.request-codes',
      'partner.errors.validation-error',
      'partner.schema.every-answer',
    ],
  },
  {
    api: 'partner',
    extension: 'x-error-codes',
    requirements: ['partner.schema.every-answer', 'partner.errors.request-codes', 'partner.errors.order-codes'],
  },
  {
    api: 'partner',
    extension: 'x-transitions',
    requirements: [
      'partner.lifecycle.order.allowed-moves',
      'partner.lifecycle.order.forbidden-moves',
      'partner.lifecycle.brokerage.moves',
    ],
  },
  {
    api: 'partner',
    extension: 'x-final-states',
    requirements: ['partner.lifecycle.order.forbidden-moves', 'partner.lifecycle.brokerage.moves'],
  },
  {
    api: 'partner',
    extension: 'x-delivered',
    requirements: ['partner.webhooks.delivery', 'partner.lifecycle.order.allowed-moves'],
  },
  { api: 'partner', extension: 'x-history-only', requirements: ['partner.lifecycle.order.allowed-moves'] },
  { api: 'partner', extension: 'x-balance-effect', requirements: ['partner.referral.ledger-balance'] },
  {
    api: 'partner',
    extension: 'x-webhook-delivery',
    requirements: [
      'partner.webhooks.delivery',
      'partner.webhooks.redelivery',
      'partner.webhooks.failure-class',
      'partner.webhooks.catch-up',
    ],
  },
  { api: 'partner', extension: 'x-commission-defaults', requirements: ['partner.lifecycle.settlement.reconciles'] },
  {
    api: 'partner',
    extension: 'x-security-headers',
    requirements: ['partner.headers.security', 'partner.headers.no-store'],
  },
  {
    api: 'partner',
    extension: 'x-body-limits',
    requirements: ['partner.errors.body-limits'],
  },
  { api: 'partner', extension: 'x-trusted-hosts', requirements: [], excluded: HOSTS },
  { api: 'partner', extension: 'x-accepted-breaking-change', requirements: [], excluded: GATE },
  { api: 'partner', extension: 'x-internal', requirements: [], excluded: INTERNAL },

  // The public document
  {
    api: 'public',
    extension: 'x-rate-limit',
    requirements: ['public.headers.rate-limit', 'public.headers.every-answer', 'public.headers.batch-cost'],
  },
  {
    api: 'public',
    extension: 'x-rate-limit-classes',
    requirements: ['public.headers.rate-limit', 'public.headers.429'],
  },
  {
    api: 'public',
    extension: 'x-pkce',
    requirements: [
      'public.oauth.flow',
      'public.oauth.pkce-verified',
      'public.oauth.pkce-plain-refused.authorize',
      'public.oauth.pkce-plain-refused.token',
    ],
  },
  {
    api: 'public',
    extension: 'x-redirect-uri-matching',
    requirements: ['public.oauth.authorize-errors', 'public.oauth.pkce-verified'],
  },
  {
    api: 'public',
    extension: 'x-error-format',
    requirements: ['public.oauth.authorize-errors', 'public.oauth.token-errors', 'public.oauth.registration'],
  },
  {
    api: 'public',
    extension: 'x-oauth-errors',
    requirements: [
      'public.oauth.authorize-errors',
      'public.oauth.token-errors',
      'public.oauth.registration',
      'public.oauth.pkce-plain-refused.authorize',
    ],
  },
  { api: 'public', extension: 'x-token-lifetimes', requirements: ['public.oauth.flow', 'public.oauth.code-expiry'] },
  {
    api: 'public',
    extension: 'x-token-rules',
    requirements: [
      'public.oauth.code-single-use',
      'public.oauth.refresh-rotation',
      'public.authz.code-per-client',
      'public.authz.refresh-per-client',
    ],
  },
  {
    api: 'public',
    extension: 'x-signin-throttle',
    requirements: [],
    excluded:
      'provoking it locks the sandbox sign-in user every OAuth and MCP check of the run (and of other runs) signs in with',
  },
  { api: 'public', extension: 'x-form-action', requirements: ['public.headers.form-action'] },
  { api: 'public', extension: 'x-mcp-protocol-versions', requirements: ['public.mcp.initialize', 'public.mcp.origin'] },
  { api: 'public', extension: 'x-mcp-tools', requirements: ['public.mcp.initialize', 'public.mcp.tools'] },
  {
    api: 'public',
    extension: 'x-cors',
    requirements: ['public.headers.cors'],
  },
  {
    api: 'public',
    extension: 'x-status-of-code',
    requirements: [
      'public.errors.validation-error',
      'public.errors.not-found',
      'public.errors.invalid-token',
      'public.errors.body-limits',
      'public.headers.429',
      'public.schema.every-answer',
    ],
  },
  {
    api: 'public',
    extension: 'x-error-codes',
    requirements: ['public.schema.every-answer', 'public.errors.validation-error', 'public.errors.not-found'],
  },
  { api: 'public', extension: 'x-body-limits', requirements: ['public.errors.body-limits'] },
  { api: 'public', extension: 'x-security-headers', requirements: ['public.headers.security'] },
  {
    api: 'public',
    extension: 'x-eov-allow-unknown-query-parameters',
    // Named for the reference server's validator, it states a rule too: these entry points ignore parameters they do not document.
    requirements: ['public.http.unknown-query-parameters'],
  },
  { api: 'public', extension: 'x-trusted-hosts', requirements: [], excluded: HOSTS },
  { api: 'public', extension: 'x-accepted-breaking-change', requirements: [], excluded: GATE },
  { api: 'public', extension: 'x-internal', requirements: [], excluded: INTERNAL },

  // The operator document
  {
    api: 'admin',
    extension: 'x-transitions',
    requirements: [
      'partner.lifecycle.order.allowed-moves',
      'partner.lifecycle.order.forbidden-moves',
      'partner.lifecycle.brokerage.moves',
    ],
  },
  // How each surface reads the request itself (root extensions of both documents)
  ...(['partner', 'public'] as const).flatMap((api) => [
    {
      api,
      extension: 'x-protocol-refusals',
      // The parser's other refusals (a lowercase method, 16 KiB of fields, the timeout) are answered by
      // whichever front reads the bytes first, with limits of its own: the reference server's tests check them.
      requirements: ['http-version', 'connect', 'expectation', 'continue-too-large'].map(
        (r) => `${api}.http.refusal.${r}`,
      ),
    },
  ]),
  {
    api: 'partner',
    extension: 'x-head',
    requirements: ['partner.http.head.as-get', 'partner.http.head.signed-as-head'],
  },
  { api: 'public', extension: 'x-head', requirements: ['public.http.head.as-get'] },
  ...(['partner', 'public'] as const).flatMap((api) => [
    { api, extension: 'x-single-headers', requirements: [`${api}.http.single-headers`] },
    { api, extension: 'x-request-target', requirements: [`${api}.http.request-target`] },
    { api, extension: 'x-unknown-query-parameters', requirements: [`${api}.http.unknown-query-parameters`] },
  ]),
  { api: 'partner', extension: 'x-failure-classes', requirements: ['partner.webhooks.failure-class'] },
  ...[
    'x-rate-limit',
    'x-prefix-by-environment',
    'x-status-of-code',
    'x-error-codes',
    'x-trusted-hosts',
    'x-security-headers',
    'x-body-limits',
    'x-check-order',
    'x-head',
    'x-single-headers',
    'x-request-target',
    'x-protocol-refusals',
  ].map((extension) => ({ api: 'admin' as const, extension, requirements: [], excluded: OPERATOR })),
  { api: 'admin', extension: 'x-accepted-breaking-change', requirements: [], excluded: GATE },
  { api: 'admin', extension: 'x-internal', requirements: [], excluded: INTERNAL },
];

const P = 'seed:partner › ';
const Q = 'seed:public › ';
const partner = (section: string, rule: string, requirements: string[], why: Partial<Covered> = {}): SeedRule => ({
  seed: 'partner',
  section: `${P}${section}`,
  rule,
  requirements,
  ...why,
});
const pub = (section: string, rule: string, requirements: string[], why: Partial<Covered> = {}): SeedRule => ({
  seed: 'public',
  section: `${Q}${section}`,
  rule,
  requirements,
  ...why,
});

export const SEED_RULES: SeedRule[] = [
  // Document 1: the partner interface
  partner(
    'What the service does',
    'Brokerage, hosted checkout and referral surfaces work only when the matching scope is enabled',
    ['partner.authz.scope.every-operation', 'partner.authz.scope.affiliate'],
  ),
  partner('What the service does', 'Brokerage: the partner opens a case to acquire a domain that is not listed', [
    'partner.brokerage.eligibility.listed',
  ]),
  partner(
    'What the service does',
    'Sandbox and live are chosen by the environment of the credential; live access is switched on after approval',
    ['partner.authz.live.approval'],
  ),
  partner(
    'Resources and their fields › Order',
    'The order endpoint rejects a mismatch with the current listing price',
    ['partner.errors.order-codes'],
  ),
  partner('Resources and their fields › Quote', 'A quote locks the current buy-now price for 10 minutes', [
    'partner.errors.quote-expired',
    'partner.lifecycle.expiry.test-clock',
    'partner.quotes.reservation.no-extension',
  ]),
  partner('Resources and their fields › Checkout session', 'The session expires after 7 days', [
    'partner.lifecycle.expiry.test-clock',
  ]),
  partner('Resources and their fields › Brokerage case', 'Cases are visible only to the partner that opened them', [
    'partner.authz.by-id.brokerage',
  ]),
  partner(
    'Resources and their fields › Referral links and reporting records',
    'Transaction history carries totals for GMV and commission',
    ['partner.reporting.transactions.totals-void-sales'],
  ),
  partner(
    'Resources and their fields › Referral links and reporting records',
    'A commission ledger entry is accrued, pending, paid out or reversed, with a running balance',
    ['partner.referral.ledger-balance'],
  ),
  partner('Resources and their fields', 'A partner sees only its own orders and records', [
    'partner.authz.lists.own-rows',
    'partner.authz.by-id.orders',
  ]),
  partner(
    'States and transitions',
    'Each trigger moves the order to its state and writes its event (order.recorded … order.refunded)',
    ['partner.lifecycle.order.allowed-moves', 'partner.lifecycle.order.forbidden-moves'],
  ),
  partner('States and transitions', 'Settlement run closes the period: SETTLED, order fully reconciled', [
    'partner.lifecycle.settlement.reconciles',
  ]),
  partner('States and transitions', 'Refund by partner only for a partner-collected order before TRANSFER_COMPLETED', [
    'partner.lifecycle.order.partner-refund',
    'partner.errors.invalid-state',
  ]),
  partner('States and transitions', 'After 10 minutes, using a quote fails with quote_expired', [
    'partner.errors.quote-expired',
  ]),
  partner('States and transitions', 'A case ends with a deal, which emits brokerage.case_completed', [
    'partner.lifecycle.brokerage.moves',
  ]),
  partner('Endpoints', 'Every request carries the authentication headers; a missing scope gives 403 forbidden', [
    'partner.authz.scope.every-operation',
    'partner.errors.request-codes',
  ]),
  partner('Endpoints › Discovery (scope `search`)', 'GET /domains/search answers up to 5 domains', [
    'partner.schema.every-answer',
  ]),
  partner(
    'Endpoints › Discovery (scope `search`)',
    'GET /availability returns 200 with available false for an unlisted domain, never 404; GET /pricing is 404 not_found if unlisted',
    ['partner.schema.sweep', 'partner.errors.request-codes'],
  ),
  partner(
    'Endpoints › Partner-collected sales',
    'The same Idempotency-Key with the same body replays the stored response; with a different body 409 conflict',
    ['partner.orders.idempotency.replay', 'partner.orders.idempotency.conflict'],
  ),
  partner(
    'Endpoints › Partner-collected sales',
    'A sale_price_cents that differs from the listing price gives 422 price_mismatch',
    ['partner.errors.order-codes'],
  ),
  partner(
    'Endpoints › Partner-collected sales',
    'GET /orders filters by status, domain and date range; cursor pagination',
    ['partner.lists.orders.walk', 'partner.lists.orders.filters', 'partner.lists.cursor.bound-to-filters'],
  ),
  partner('Endpoints › Settlement and reporting', 'POST /refunds: before TRANSFER_COMPLETED only', [
    'partner.lifecycle.order.partner-refund',
  ]),
  partner('Endpoints › Brokerage', 'Eligibility: ineligible if the domain already has an open case', [
    'partner.brokerage.eligibility.open-case',
  ]),
  partner('Endpoints › Brokerage', 'Eligibility: ineligible if the domain runs an active live site', [], {
    excluded:
      'which domains run an active live site is what the deployment knows of the world: no operation names one, so the kit cannot pick a domain the rule applies to',
  }),
  partner(
    'Endpoints › Referral and performance',
    'Referral requires the credential to be linked to an affiliate account',
    ['partner.authz.scope.affiliate'],
  ),
  partner(
    'Endpoints › Webhooks and events',
    'PUT /api/partner/webhooks registers or updates: 200 with url, active, created_at',
    ['partner.webhooks.register'],
  ),
  partner('Endpoints › Webhooks and events', 'GET /events pages by after_id, following next_cursor (an event id)', [
    'partner.events.after-id',
    'partner.events.cursor-edges',
  ]),
  partner('Authentication › Required headers', 'X-Service-Timestamp is Unix time in seconds, not milliseconds', [
    'partner.auth.skew.malformed',
  ]),
  partner('Authentication › Required headers', 'Idempotency-Key is required on POST /orders', [
    'partner.orders.idempotency.key-required',
  ]),
  partner(
    'Authentication › Canonical string',
    'Exactly six lines: METHOD, PATH exactly as requested, QUERY_STRING, TIMESTAMP, NONCE, BODY_SHA256_HEX',
    ['partner.auth.canonical-query.accepted', 'partner.auth.signature.body-changed'],
  ),
  partner('Authentication › Canonical string', 'BODY_SHA256_HEX is the SHA-256 of the raw body bytes exactly as sent', [
    'partner.auth.signature.raw-body-bytes',
    'partner.auth.signature.body-changed',
  ]),
  partner(
    'Authentication › Canonical query',
    'Sort by key then value; percent-encode all but A-Z a-z 0-9 - _ . ~, uppercase hex',
    [
      'partner.auth.canonical-query.accepted',
      'partner.auth.canonical-query.mistake.unsorted-pairs',
      'partner.auth.canonical-query.mistake.lowercase-hex',
      'partner.auth.canonical-query.mistake.reserved-literal',
      'partner.auth.canonical-query.mistake.utf16-order',
      'partner.auth.canonical-query.mistake.space-as-plus',
    ],
  ),
  partner('Authentication › Signature', 'Signing with the public key id instead of the secret fails', [
    'partner.auth.signature.key-id-as-secret',
  ]),
  partner('Authentication › Signature', 'The server compares signatures with a timing-safe comparison', [], {
    excluded:
      'a timing difference of one comparison cannot be measured reliably over a network from one client; the reference server uses crypto.timingSafeEqual',
  }),
  partner('Authentication › Signature', 'The secret is never sent; sign server-side only', [], {
    excluded: "a rule for the partner's own code, not for the deployment",
  }),
  partner(
    'Authentication › Replay protection',
    'The timestamp must be within 300 seconds of server time, either direction',
    [
      'partner.auth.skew.within-window',
      'partner.auth.skew.beyond-window',
      'partner.auth.skew.past-edge',
      'partner.auth.skew.future-edge',
    ],
  ),
  partner('Authentication › Replay protection', 'A nonce cannot be reused while it is still tracked', [
    'partner.auth.nonce.reuse',
    'partner.auth.nonce.identical-request',
    'partner.auth.nonce.after-pause',
    'partner.auth.nonce.window-end',
  ]),
  partner('Authentication › Scopes', 'Each scope grants exactly its operations', [
    'partner.authz.scope.every-operation',
  ]),
  partner('Authentication', 'Use HTTPS in production', [], {
    excluded:
      "the deployment's configuration: the kit checks whatever URL it is given (HSTS on an https deployment is partner.headers.security and public.headers.security)",
  }),
  partner(
    'Events › Delivery',
    'POST with a JSON body; X-Service-Signature is the hex HMAC-SHA256 of the raw body, no v1= prefix',
    ['partner.webhooks.delivery'],
  ),
  partner('Events › Delivery', 'Delivery is at least once', ['partner.webhooks.redelivery']),
  partner('Events › Delivery', 'After downtime, the receiver replays through GET /events with after_id', [
    'partner.webhooks.catch-up',
  ]),
  partner('Events › Delivery', 'The receiver must answer 200 within 5 seconds; handlers must be idempotent', [], {
    excluded: "rules for the partner's receiver: `domain-sales-conformance receiver --url …` checks them",
  }),
  partner('Events › Event kinds', 'Each kind is delivered on its trigger', [
    'partner.webhooks.delivery',
    'partner.lifecycle.order.allowed-moves',
  ]),
  partner('Errors', 'The body carries a message field with details for validation_error', [
    'partner.errors.validation-error',
  ]),
  partner('Errors', 'Each condition answers its HTTP status and code', [
    'partner.errors.auth-codes',
    'partner.errors.request-codes',
    'partner.errors.order-codes',
    'partner.errors.domain-reserved',
    'partner.quotes.reservation.cooldown',
    'partner.errors.invalid-cursor',
  ]),
  partner('Errors', '500 internal_error only for an unexpected error (never for bad input)', [
    'partner.schema.sweep',
    'partner.schema.invalid-inputs',
  ]),
  partner(
    'Limits',
    'Search 60, write 20, reporting 30 requests per minute per credential; a limited answer carries Retry-After',
    ['partner.headers.rate-limit.per-class', 'partner.headers.rate-limit.429', 'partner.errors.rate-limited'],
  ),
  partner('Versioning', 'Partner endpoints under /api/partner/v1; webhook registration at /api/partner/webhooks', [
    'partner.schema.sweep',
    'partner.webhooks.register',
  ]),

  // Document 2: the public API, OAuth and MCP
  pub('What the service does', 'The public REST API answers without an account or API key', ['public.schema.sweep']),
  pub(
    'What the service does',
    'OAuth changes one thing only: search returns real prices; without a token they are masked',
    ['public.oauth.flow'],
  ),
  pub(
    'What the service does',
    'The OpenAPI document at /openapi.json, the API index at /api/v1, a Markdown twin of every page',
    ['public.schema.sweep'],
  ),
  pub('Resources and their fields', 'Every list returns a page object: next_cursor, limit, offset, total', [
    'public.listings.offset',
    'public.listings.walk',
  ]),
  pub('Endpoints › Public REST', 'Follow page.next_cursor until it is null', ['public.listings.walk']),
  pub('Endpoints › Public REST', 'next_cursor is also returned on offset pages, so the caller may switch styles', [
    'public.listings.offset-next-cursor',
  ]),
  pub('Endpoints › Public REST', 'A cursor reused with different filters or sort gives 400 invalid_cursor', [
    'public.listings.cursor-bound',
    'public.listings.cursor-tamper-proof',
  ]),
  pub('Endpoints › Public REST', 'A batch holds at most 20 operations; a bad entry returns its own 400', [
    'public.batch.max-entries',
    'public.batch.per-entry',
    'public.batch.whole-request-errors',
  ]),
  pub('Endpoints › Public REST', 'Each batch entry counts against the rate limit the same way', [
    'public.headers.batch-cost',
  ]),
  pub('Endpoints › Public REST', 'Bulk: at most 1,000 domains the caller owns; requires sign-in', [
    'public.bulk.max-domains',
    'public.errors.missing-credentials',
  ]),
  pub('Endpoints › Public REST', 'Retries: send an Idempotency-Key header on POST', [
    'public.errors.idempotency',
    'public.authz.idempotency-per-grant',
  ]),
  pub(
    'Endpoints › OAuth 2.1 endpoints',
    'Metadata (RFC 9728, RFC 8414; the openid-configuration mirror is not served: the spec says why)',
    ['public.oauth.metadata-rfc8414'],
  ),
  pub('Endpoints › OAuth 2.1 endpoints', 'Dynamic client registration, no approval step, returns client_id', [
    'public.oauth.registration',
  ]),
  pub('Endpoints › MCP server', 'Streamable HTTP at /mcp with the four tools; search_domain forwards a bearer token', [
    'public.mcp.initialize',
    'public.mcp.tools',
    'public.mcp.bearer',
  ]),
  pub('Authentication', 'The only method is authorization_code with PKCE (S256); all clients are public', [
    'public.oauth.metadata-rfc8414',
    'public.oauth.pkce-plain-refused.authorize',
    'public.oauth.pkce-plain-refused.token',
    'public.oauth.token-errors',
  ]),
  pub('Authentication', 'The code is single-use', ['public.oauth.code-single-use', 'public.authz.code-per-client']),
  pub('Authentication', 'The code expires in 60 seconds', ['public.oauth.code-expiry']),
  pub('Authentication', 'The refresh token is valid 30 days', [], {
    excluded:
      '30 days cannot be waited out in a run, and the contract gives OAuth no test clock to move; rotation and revocation of refresh tokens are public.oauth.refresh-rotation',
  }),
  pub('Authentication', 'Refresh tokens rotate on every use; the previous one is invalidated', [
    'public.oauth.refresh-rotation',
    'public.authz.refresh-per-client',
  ]),
  pub('Authentication', 'redirect_uri must exactly equal one registered for the client', [
    'public.oauth.authorize-errors',
    'public.oauth.pkce-verified',
  ]),
  pub(
    'Authentication',
    'Unauthenticated calls to protected paths: 401 with WWW-Authenticate: Bearer resource_metadata',
    ['public.errors.missing-credentials'],
  ),
  pub('Authentication', 'Immediate revocation is done by support and takes effect at once', [], {
    excluded: 'an operator action with no API in the contract',
  }),
  pub('Errors', 'invalid_token 401; invalid_grant, invalid_redirect_uri, invalid_cursor 400; 429 with Retry-After', [
    'public.errors.invalid-token',
    'public.oauth.pkce-verified',
    'public.oauth.authorize-errors',
    'public.listings.cursor-bound',
    'public.headers.429',
  ]),
  pub('Errors', 'The public surface uses one typed error shape (the Error schema)', ['public.schema.every-answer']),
  pub('Limits', 'Every public endpoint returns IETF RateLimit-* headers; a 429 carries Retry-After', [
    'public.headers.every-answer',
    'public.headers.rate-limit',
    'public.headers.429',
  ]),
  pub('Versioning', 'The unauthenticated endpoints are additive-only', [], { excluded: GATE }),
  pub('Versioning', 'Deprecations are announced with Deprecation and Sunset headers', ['partner.headers.deprecation']),
];
