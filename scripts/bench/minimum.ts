// The stack alone (floor.ts) plus only what the partner document requires of every signed GET:
// the signature checked with the key's secret, the nonce recorded and the request counted in one
// write to the store (x-signing; the reference server's own `partnerAuth` and `rateLimit` steps
// over its own SQLite store and replay guard), and the rate-limit headers on the answer. The key
// is held in memory (the reference server keeps its credential rows in memory too: row-cache.ts).
// Nothing else of the reference server runs: no request id, log line or metrics, no security or
// surface headers, no Host, message or target checks, no CORS, no probes. Its throughput over the
// stack's is the most the reference server could reach against the stack on this machine
// (`production_vs_floor`).
// REQUIRED=signature stops at the signature: every nonce is taken as fresh, nothing is written or
// counted. Between the stack, this and the whole, the bench splits the required work's cost in two.
// `READY <url>` on stdout once it listens.
import { randomBytes } from 'node:crypto';
import express from 'express';
import { systemClock } from '../../server/clock.ts';
import { Contract } from '../../server/contract/index.ts';
import { rateLimitClasses } from '../../server/domain/rate-limit.ts';
import { inOrder } from '../../server/http/in-order.ts';
import { matchOperation } from '../../server/http/match-operation.ts';
import { partnerAuth } from '../../server/http/partner-auth.ts';
import { rateLimit } from '../../server/http/rate-limit.ts';
import { rawBody } from '../../server/http/raw-body.ts';
import { openApiValidator } from '../../server/http/validator.ts';
import { listenForBench } from './lib/stack-server.ts';
import { secretBox } from '../../server/security/secret-box.ts';
import type { Credential } from '../../server/store/credentials.ts';
import type { ReplayGuardRepository } from '../../server/store/replay-guard.ts';
import { openDatabase } from '../../server/store/database.ts';
import { createStore } from '../../server/store/index.ts';

const signatureOnly = process.env.REQUIRED === 'signature';
if (process.env.REQUIRED !== undefined && !signatureOnly)
  throw new Error(`REQUIRED must be "signature" or unset, got "${process.env.REQUIRED}"`);
const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR is required');
const body: unknown = JSON.parse(process.env.BARE_BODY ?? '{}');
// The key the bench signs with for the servers that do not check signatures (availability.ts).
const key: Credential = {
  keyId: process.env.KEY_ID ?? 'pk_test_bench',
  secret: process.env.KEY_SECRET ?? 'sk_test_bench',
  partnerId: 'bench',
  environment: 'sandbox',
  scopes: [],
  affiliate: false,
  approved: true,
  rateLimits: {},
  createdAt: 0,
};

const contract = Contract.load().partner;
const classes = rateLimitClasses(contract.document);
const store = createStore(await openDatabase({ dataDir }), secretBox(randomBytes(32)));
await store.replayGuard.learnLog();
/** The signature-only leg's admission: every nonce fresh, nothing written, counted as the first. */
const admitAll: Pick<ReplayGuardRepository, 'admit'> = {
  admit: (_request, now) => Promise.resolve({ fresh: true, count: 1, windowStart: now }),
};
const counting = rateLimit({
  classes,
  counter: store.replayGuard,
  clock: systemClock,
  bucketOf: (_req, _res, className) => `${key.keyId}:${className}`,
  // The bench's load is far above any documented quota: never refused, as the bench's minted keys.
  limitOf: () => Number.MAX_SAFE_INTEGER,
});
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(
  inOrder(
    rawBody(),
    matchOperation(contract),
    partnerAuth({
      credentials: { findCredential: async (keyId) => (keyId === key.keyId ? key : undefined) },
      replayGuard: signatureOnly ? admitAll : store.replayGuard,
      classes,
      clock: systemClock,
    }),
    ...(signatureOnly ? [] : [counting]),
    openApiValidator(contract, { validateResponses: false }),
  ),
);
app.get('/api/partner/v1/availability', (_req, res) => void res.json(body));
listenForBench(app, () => store.close());
