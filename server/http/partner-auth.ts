// Signed authentication of the partner surface, exactly in the order of the partner document's x-signing `check-order`:
// malformed query → missing_credentials → missing_signature_headers → invalid_timestamp →
// invalid_signature → replay_detected. The nonce is recorded only after the signature verifies,
// and in the same write the request is counted against its rate-limit class (a replay is not):
// every signed request then waits for one durable commit, not two. The rate-limit step decides.
// The operation must have been matched (match-operation.ts) for its class.
//
// Where rows are kept in memory (store/row-cache.ts), the credential is first read trusting them,
// without checking the store's version: that write reads the version anyway, nearly for free, and
// answers `stale` if another process has committed since, and the request then reads its
// credential again, checked, and asks again. On PostgreSQL the same holds for the credential row
// an instance last read (store/credentials.ts `lastRead`): the write checks that row's digest.
// A refusal is never made from kept rows alone: a signature that does not verify is checked
// against a checked read before the 401.
import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import {
  HEADER_KEY_ID,
  HEADER_NONCE,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  checkTimestamp,
  isProtocolError,
  isValidNonce,
  parseQueryPairs,
  splitRequestTarget,
  verify,
  type QueryPair,
} from '../../client/protocol/index.ts';
import type { Clock } from '../clock.ts';
import { nonceExpiresAt } from '../domain/nonce.ts';
import { rateLimitClassOf, type RateLimitClass } from '../domain/rate-limit.ts';
import { NO_FAULTS, reserialisedBody, signatureOverRawQuery, type Faults } from '../faults.ts';
import type { Credential, CredentialRepository } from '../store/credentials.ts';
import type { Counted, ReplayGuardRepository } from '../store/replay-guard.ts';
import { trusting, type ReadMark } from '../store/row-cache.ts';
import { ApiError } from './errors.ts';
import { sentTarget } from './request-target.ts';

// Unknown key id and wrong signature answer alike, so key ids cannot be probed.
const BAD_SIGNATURE = 'Signature does not match the canonical request (or the key id is unknown)';

/** What an unknown key id is verified against: shaped like a real secret, known to no one. */
const UNKNOWN_KEY_SECRET = `sk_test_${randomBytes(30).toString('base64url')}`;

declare module 'express-serve-static-core' {
  interface Locals {
    credential?: Credential;
    /** This request's count in its rate-limit window, taken with its nonce. */
    counted?: Counted;
    /** When the request arrived, for reads of rows kept in memory (store/row-cache.ts). */
    readMark?: ReadMark;
  }
}

export interface PartnerAuthDeps {
  credentials: Pick<CredentialRepository, 'findCredential'> & Partial<Pick<CredentialRepository, 'lastRead'>>;
  replayGuard: Pick<ReplayGuardRepository, 'admit'>;
  /** The rate-limit classes of the document (x-rate-limit). */
  classes: Readonly<Record<string, RateLimitClass>>;
  /** The class of a request that matched no operation; absent: such a request is not counted (rate-limit.ts). */
  unmatchedClass?: string;
  /** The store's mark of now (store/row-cache.ts); absent where nothing is kept in memory. */
  readMark?: () => ReadMark | undefined;
  /** The signature clock: real time, never a partner's test clock. */
  clock: Clock;
  faults?: Faults;
}

/**
 * The PATH line and raw query of the request target; a target that has no PATH line (absolute
 * form, a fragment) or a malformed query escape is a 400 `validation_error`, answered before the
 * key id is looked up, so the answer is the same for every key id.
 */
function signedTarget(target: string): { path: string; query: string; pairs: QueryPair[] } {
  try {
    const split = splitRequestTarget(target);
    // Decoding checks every escape; the canonical form is built once, by verify().
    return { path: split.path, query: split.query, pairs: parseQueryPairs(split.query) };
  } catch (err) {
    if (!isProtocolError(err)) throw err;
    if (err.details.some((d) => d.path === '/path'))
      throw new ApiError('validation_error', err.message, [...err.details]);
    throw new ApiError(
      'validation_error',
      `Query string is malformed: ${err.message}`,
      err.details.map((d) => ({ path: '/query', message: d.message })),
    );
  }
}

/**
 * Makes `req.query` the parameters the signature covers (x-signing `canonical-query`): decoded from the raw
 * request target, `%XX` escapes only, so a `+` stays a plus. Express's own parser turns it into a
 * space, and the handlers would then act on another value than the one that was signed.
 * A repeated key gives an array, as Express's parser does (and the validator refuses it).
 */
function useSignedQuery(req: Request, pairs: readonly QueryPair[]): void {
  const parsed: Record<string, string | string[]> = {};
  for (const { key, value } of pairs) {
    const seen = Object.hasOwn(parsed, key) ? parsed[key] : undefined;
    const next = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    // `__proto__` is the one key whose assignment would set the prototype instead: defined, it
    // is an ordinary member (defining every key cost the signed GET about 1 % of its CPU).
    if (key === '__proto__')
      Object.defineProperty(parsed, key, { value: next, enumerable: true, writable: true, configurable: true });
    else parsed[key] = next;
  }
  Object.defineProperty(req, 'query', { value: parsed, enumerable: true, writable: true, configurable: true });
}

/** What a signed request says of itself: what its signature is checked against. */
interface Signed {
  keyId: string;
  signature: string;
  method: string;
  path: string;
  query: string;
  timestamp: string;
  nonce: string;
  body: Buffer;
}

/**
 * The credential `signed` was signed with, read with `mark`; undefined when the signature does
 * not verify. (Functions of the module, not made per request: tsx renames every function made.)
 */
async function authenticated(
  deps: PartnerAuthDeps,
  faults: Faults,
  signed: Signed,
  mark: ReadMark | undefined,
): Promise<Credential | undefined> {
  return signedWith(faults, signed, await deps.credentials.findCredential(signed.keyId, mark));
}

/** `credential` when `signed` was signed with it; undefined otherwise (or when there is none). */
function signedWith(faults: Faults, signed: Signed, credential: Credential | undefined): Credential | undefined {
  const { signature, method, path, query, timestamp, nonce, body } = signed;
  // An unknown key id is verified too, against a stand-in secret, so that it costs what a
  // known one costs (x-signing `unknown-key-id`): the answer's timing cannot confirm a key id.
  const verified = verify({
    secret: credential?.secret ?? UNKNOWN_KEY_SECRET,
    signatureHeader: signature,
    method,
    path,
    query,
    timestamp,
    nonce,
    body: faults.has('body-hash-reserialised') ? reserialisedBody(body) : body,
  });
  const genuine =
    credential !== undefined &&
    (verified ||
      (faults.has('lenient-canonicalisation') &&
        signature ===
          signatureOverRawQuery({ secret: credential.secret, method, path, query, timestamp, nonce, body })));
  return genuine ? credential : undefined;
}

/** `authenticated`, or the 401. */
async function authenticatedOrRefused(
  deps: PartnerAuthDeps,
  faults: Faults,
  signed: Signed,
  mark: ReadMark | undefined,
): Promise<Credential> {
  const credential = await authenticated(deps, faults, signed, mark);
  if (!credential) throw new ApiError('invalid_signature', BAD_SIGNATURE);
  return credential;
}

export function partnerAuth(deps: PartnerAuthDeps): RequestHandler {
  const faults = deps.faults ?? NO_FAULTS;
  return async (req, res, next) => {
    try {
      // Taken first: the request's reads may rely on a check of the store made after this.
      const since = deps.readMark?.();
      res.locals.readMark = since;
      const { path, query, pairs } = signedTarget(sentTarget(req));
      useSignedQuery(req, pairs);

      const keyId = req.get(HEADER_KEY_ID);
      if (!keyId) throw new ApiError('missing_credentials', `The ${HEADER_KEY_ID} header is required`);
      const timestamp = req.get(HEADER_TIMESTAMP);
      const nonce = req.get(HEADER_NONCE);
      const signature = req.get(HEADER_SIGNATURE);
      if (timestamp === undefined || nonce === undefined || signature === undefined) {
        const missing = [
          [HEADER_TIMESTAMP, timestamp],
          [HEADER_NONCE, nonce],
          [HEADER_SIGNATURE, signature],
        ].filter(([, v]) => v === undefined);
        throw new ApiError('missing_signature_headers', `Missing header(s): ${missing.map(([n]) => n).join(', ')}`);
      }

      const now = deps.clock.now();
      const freshness = checkTimestamp(timestamp, now / 1000);
      if (freshness === 'malformed') {
        throw new ApiError(
          'invalid_timestamp',
          `${HEADER_TIMESTAMP} must be Unix time in whole seconds (at most 10 digits), got "${timestamp.slice(0, 20)}"`,
        );
      }
      const drift = Math.abs(Number(timestamp) - Math.floor(now / 1000));
      if (freshness === 'skewed' && !faults.has('ignore-skew') && !(faults.has('skew-window-301') && drift === 301)) {
        throw new ApiError(
          'invalid_timestamp',
          `${HEADER_TIMESTAMP} is ${drift} seconds away from server time (limit 300)`,
        );
      }
      if (!isValidNonce(nonce)) {
        throw new ApiError('invalid_signature', `${HEADER_NONCE} must be 1 to 128 printable ASCII characters`);
      }

      const signed: Signed = {
        keyId,
        signature,
        method: req.method.toUpperCase(),
        path,
        query,
        timestamp,
        nonce,
        body: req.rawBody,
      };
      // How the admission confirms a credential not read checked for this request: SQLite, the
      // kept rows' epoch when it was read trusting them; PostgreSQL, the digest of the row this
      // instance last read. Both undefined: read checked.
      let readEpoch: number | undefined;
      let digest: string | undefined;
      let credential = since && (await authenticated(deps, faults, signed, trusting(since)));
      if (credential) readEpoch = since?.epoch;
      else {
        const last = deps.credentials.lastRead?.(keyId);
        credential = last && signedWith(faults, signed, last.credential);
        if (credential) digest = last?.digest;
        else credential = await authenticatedOrRefused(deps, faults, signed, since);
      }
      if (!res.locals.operation && deps.unmatchedClass === undefined) {
        // Identified, and answered 404 or 405 next (unmatchedRoute): nothing was done, so nothing
        // is counted and no nonce is kept (a replay gets the same 404). Nothing confirms a
        // trusting read here: read checked.
        res.locals.credential =
          readEpoch === undefined && digest === undefined
            ? credential
            : await authenticatedOrRefused(deps, faults, signed, since);
        next();
        return;
      }

      const { name, windowSeconds } = rateLimitClassOf(
        deps.classes,
        res.locals.operation?.rateClass,
        deps.unmatchedClass,
      );
      const bucket = `${keyId}:${name}`;
      const windowMs = windowSeconds * 1000;
      const expiresAt = nonceExpiresAt(Number(timestamp)) * 1000;
      let admission = await deps.replayGuard.admit(
        { keyId, nonce, expiresAt, bucket, windowMs, readEpoch, digest },
        now,
      );
      if (!admission.fresh && admission.stale) {
        // Another process committed before the write (SQLite), or the row changed since this
        // instance read it (PostgreSQL): the credential is read again, checked.
        credential = await authenticatedOrRefused(deps, faults, signed, since);
        admission = await deps.replayGuard.admit(
          { keyId, nonce, expiresAt, bucket, windowMs, readEpoch: undefined, digest: undefined },
          now,
        );
      }
      const forgotten = faults.has('short-nonce-memory') && now / 1000 - Number(timestamp) >= 299;
      if (!admission.fresh && !faults.has('accept-replays') && !forgotten)
        throw new ApiError('replay_detected', `${HEADER_NONCE} has already been used with this key id`);

      res.locals.credential = credential;
      if (admission.fresh) res.locals.counted = { count: admission.count, windowStart: admission.windowStart };
      next();
    } catch (err) {
      // A protocol rule broken by the request is its documented 4xx, never a 500.
      next(isProtocolError(err) ? new ApiError(err.code, err.message, [...err.details]) : err);
    }
  };
}
