// Which pages the developer docs have, in the order the start page and llms.txt list them.
// References are generated from the bundled documents; guides are hand-written Markdown files
// (their title is their first `# ` heading).

export type ApiName = 'public' | 'partner' | 'admin';

export interface ReferenceEntry {
  kind: 'reference';
  slug: string;
  title: string;
  summary: string;
  api: ApiName;
  /** Where the document is served, if it is. */
  documentPath?: string;
  defaultAuthentication: string;
}

export interface GuideEntry {
  kind: 'guide';
  slug: string;
  summary: string;
  /** Source file, relative to the repository root. */
  file: string;
}

export type CatalogEntry = ReferenceEntry | GuideEntry;

export const REFERENCES: readonly ReferenceEntry[] = [
  {
    kind: 'reference',
    slug: 'public-api',
    title: 'Public API reference',
    summary:
      'Domain search, WHOIS/RDAP, TLD pricing and requirements, listings, batch and bulk, OAuth 2.1, the discovery documents and MCP.',
    api: 'public',
    documentPath: '/openapi.json',
    defaultAuthentication: 'None',
  },
  {
    kind: 'reference',
    slug: 'partner-api',
    title: 'Partner API reference',
    summary:
      'The signed partner API: discovery, quotes, orders, hosted checkout, settlement, brokerage, referral links, webhooks and events.',
    api: 'partner',
    documentPath: '/api/partner/v1/openapi.json',
    defaultAuthentication: 'Signed request: the four `X-Service-*` headers (see the signing guide)',
  },
  {
    kind: 'reference',
    slug: 'admin-api',
    title: 'Operator API reference',
    summary:
      'The operator API (`/api/admin/v1`): credentials, order moves, settlement runs, brokerage moves, payouts, the sandbox test clock.',
    api: 'admin',
    defaultAuthentication: '`Authorization: Bearer <ADMIN_TOKEN>`',
  },
];

export const GUIDES: readonly GuideEntry[] = [
  {
    kind: 'guide',
    slug: 'getting-started',
    summary: 'Run the sandbox, mint a sandbox credential, make a first signed call and a first public call.',
    file: 'docs/guides/getting-started.md',
  },
  {
    kind: 'guide',
    slug: 'signing',
    summary: 'The exact request-signing recipe of the partner API, with worked examples and webhook signatures.',
    file: 'spec/docs/signing.md',
  },
  {
    kind: 'guide',
    slug: 'cli',
    summary:
      'The partner CLI `domain-sales`: signed requests and curl commands, events forwarded to a local receiver, webhook signatures explained.',
    file: 'docs/guides/cli.md',
  },
  {
    kind: 'guide',
    slug: 'idempotency',
    summary: 'Safe retries with `Idempotency-Key` on both surfaces: replays, conflicts, what is stored.',
    file: 'docs/guides/idempotency.md',
  },
  {
    kind: 'guide',
    slug: 'pagination',
    summary: 'Partner lists, the event history and public listings: limits, cursors, offsets.',
    file: 'docs/guides/pagination.md',
  },
  {
    kind: 'guide',
    slug: 'webhooks-and-events',
    summary: 'Registering a webhook, verifying deliveries, retries, and catching up from the event history.',
    file: 'docs/guides/webhooks-and-events.md',
  },
  {
    kind: 'guide',
    slug: 'errors',
    summary: 'The one `Error` body, every error code with its status, and the OAuth error formats.',
    file: 'docs/guides/errors.md',
  },
  {
    kind: 'guide',
    slug: 'rate-limits',
    summary: 'The rate-limit classes, their quotas, the `RateLimit` headers and 429 handling.',
    file: 'docs/guides/rate-limits.md',
  },
  {
    kind: 'guide',
    slug: 'oauth',
    summary: 'OAuth 2.1 with PKCE: registration, authorization, tokens, refresh rotation, the sandbox user.',
    file: 'docs/guides/oauth.md',
  },
  {
    kind: 'guide',
    slug: 'mcp',
    summary: 'The MCP server: endpoint, protocol revisions, tools, the bearer token and discovery documents.',
    file: 'docs/guides/mcp.md',
  },
  // The npm packages' READMEs (each package folder's README.md, also shown by the registry).
  {
    kind: 'guide',
    slug: 'package-client',
    summary: '`@domain-sales/client`: install, entry points and which run in browsers and edge runtimes, webhooks.',
    file: 'client/README.md',
  },
  {
    kind: 'guide',
    slug: 'package-sandbox',
    summary: '`@domain-sales/sandbox`: the sandbox one `npx` away, its data directory, operator token and settings.',
    file: 'server/README.md',
  },
  {
    kind: 'guide',
    slug: 'package-conformance',
    summary: '`@domain-sales/conformance`: the conformance kit with `npx`, its options, receiver mode and CI use.',
    file: 'conformance/README.md',
  },
  {
    kind: 'guide',
    slug: 'package-contract',
    summary: '`@domain-sales/contract`: the bundled OpenAPI documents, their TypeScript types and the signing vectors.',
    file: 'generated/README.md',
  },
];

/**
 * The signing test vectors served at `/docs/vectors/signing.json`, relative to the repository
 * root (the build copies the file to the same place in the sandbox package).
 */
export const SIGNING_VECTORS_FILE = 'spec/vectors/signing.json';

export const CATALOG: readonly CatalogEntry[] = [...REFERENCES, ...GUIDES];
