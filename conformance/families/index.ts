// Every check family, in the order they run (the schema families last).
import type { Family } from '../context.ts';
import { canonicalQueryFamily, clockSkewFamily, nonceReplayFamily } from './protocol.ts';
import { idempotencyFamily } from './idempotency.ts';
import { paginationFamily } from './pagination.ts';
import { errorCodesFamily } from './errors.ts';
import { headersFamily } from './headers.ts';
import { webhooksFamily } from './webhooks.ts';
import { authorizationFamily } from './authorization.ts';
import { lifecycleFamily } from './lifecycle.ts';
import { salesRulesFamily } from './sales-rules.ts';
import { edgesFamily } from './edges.ts';
import { framingFamily, publicFramingFamily } from './framing.ts';
import { publicEdgesFamily } from './public-edges.ts';
import { publicAuthorizationFamily } from './public-authorization.ts';
import { schemaFamily } from './schema.ts';
import { listingsFamily } from './listings.ts';
import { publicErrorsFamily } from './public-errors.ts';
import { publicHeadersFamily } from './public-headers.ts';
import { oauthFamily } from './oauth.ts';
import { mcpFamily } from './mcp.ts';
import { publicSchemaFamily } from './public-schema.ts';

export const ALL_FAMILIES: Family[] = [
  canonicalQueryFamily,
  clockSkewFamily,
  nonceReplayFamily,
  // Before idempotency: with a default quota, its reporting reads and idempotency's writes then
  // run out of their windows at about the same time, so one wait refills both.
  paginationFamily,
  idempotencyFamily,
  errorCodesFamily,
  headersFamily,
  webhooksFamily,
  authorizationFamily,
  lifecycleFamily,
  salesRulesFamily,
  edgesFamily,
  framingFamily,
  schemaFamily,
  listingsFamily,
  publicErrorsFamily,
  oauthFamily,
  mcpFamily,
  publicEdgesFamily,
  publicFramingFamily,
  publicAuthorizationFamily,
  // After the others: it reviews every public answer they caused.
  publicHeadersFamily,
  publicSchemaFamily,
];
