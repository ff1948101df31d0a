// Every check family, in the order they run (the schema family last).
import type { Family } from '../context.ts';
import { canonicalQueryFamily, clockSkewFamily, nonceReplayFamily } from './protocol.ts';
import { idempotencyFamily } from './idempotency.ts';
import { paginationFamily } from './pagination.ts';
import { errorCodesFamily } from './errors.ts';
import { headersFamily } from './headers.ts';
import { webhooksFamily } from './webhooks.ts';
import { schemaFamily } from './schema.ts';

export const ALL_FAMILIES: Family[] = [canonicalQueryFamily, clockSkewFamily, nonceReplayFamily, idempotencyFamily, paginationFamily, errorCodesFamily, headersFamily, webhooksFamily, schemaFamily];
