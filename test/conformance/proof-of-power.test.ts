// Proof of power: the suite must notice when a deployment breaks the contract. Each fault of the
// reference server's test-only switch (server/faults.ts) must make the family that guards that
// rule fail; every family must catch at least one fault.
import { afterEach, describe, expect, it } from 'vitest';
import { runConformance, startReferenceServer } from '../../conformance/run.ts';
import { ALL_FAMILIES } from '../../conformance/families/index.ts';
import type { Fault } from '../../server/faults.ts';
import { measureStartup } from '../support/startup.ts';

// Each case starts a server and runs checks whose time grows with the machine's load: the
// timeouts are scaled from a start-up measured now (floors: a quiet machine's, the OAuth code
// lifetime's minute included).
const timing = await measureStartup();

/** The fault, the family that must catch it, and (for the new families) the check that names it. */
const CASES: Array<[Fault, string, string?]> = [
  ['lenient-canonicalisation', 'canonical-query'],
  ['ignore-skew', 'clock-skew'],
  ['accept-replays', 'nonce-replay'],
  ['ignore-idempotency', 'idempotency'],
  ['duplicate-page-items', 'pagination'],
  ['drop-page-items', 'pagination'],
  ['wrong-error-codes', 'error-codes'],
  ['missing-retry-after', 'headers'],
  ['remove-response-field', 'schema'],
  ['bad-webhook-signature', 'webhooks'],
  ['foreign-orders-visible', 'authorization', 'partner.authz.by-id.orders'],
  ['cancel-after-delivery', 'lifecycle', 'partner.lifecycle.order.forbidden-moves'],
  ['skew-window-301', 'edges', 'partner.auth.skew.past-edge'],
  ['skew-window-301', 'edges', 'partner.auth.skew.future-edge'],
  ['short-nonce-memory', 'edges', 'partner.auth.nonce.window-end'],
  ['body-hash-reserialised', 'canonical-query', 'partner.auth.signature.raw-body-bytes'],
  ['offset-pages-null-cursor', 'public-pagination', 'public.listings.offset-next-cursor'],
  ['void-sales-in-gmv', 'lifecycle', 'partner.reporting.transactions.totals-void-sales'],
  ['pkce-plain-accepted', 'oauth', 'public.oauth.pkce-plain-refused.authorize'],
  ['pkce-plain-accepted', 'oauth', 'public.oauth.pkce-plain-refused.token'],
  ['partner-no-nosniff', 'headers', 'partner.headers.security'],
  ['cors-missing-on-errors', 'public-headers', 'public.headers.cors'],
  ['partner-body-limit-ignored', 'canonical-query', 'partner.errors.body-limits'],
  ['head-signed-as-get', 'http-framing', 'partner.http.head.as-get'],
  ['head-signed-as-get', 'http-framing', 'partner.http.head.signed-as-head'],
  ['head-content-length-zero', 'public-http-framing', 'public.http.head.as-get'],
  ['repeated-headers-joined', 'http-framing', 'partner.http.single-headers'],
  ['repeated-headers-joined', 'public-http-framing', 'public.http.single-headers'],
  ['absolute-target-path-signed', 'http-framing', 'partner.http.request-target'],
  ['target-parsed-by-router', 'public-http-framing', 'public.http.request-target'],
  ['unknown-query-ignored', 'http-framing', 'partner.http.unknown-query-parameters'],
  ['unknown-query-ignored', 'public-http-framing', 'public.http.unknown-query-parameters'],
  ['delivery-error-detail', 'webhooks', 'partner.webhooks.failure-class'],
  ['form-action-self-only', 'public-headers', 'public.headers.form-action'],
  ['attribution-window-ignored', 'sales-rules', 'partner.referral.attribution-window'],
  ['payouts-not-debited', 'sales-rules', 'partner.referral.ledger-balance'],
  ['eligibility-ignores-open-cases', 'sales-rules', 'partner.brokerage.eligibility.open-case'],
  ['long-code-lifetime', 'oauth', 'public.oauth.code-expiry'],
  ['quotes-race', 'error-codes', 'partner.quotes.reservation.one-at-a-time'],
  ['quote-order-race', 'error-codes', 'partner.quotes.reservation.against-an-order'],
  ['checkout-pay-ignores-reservation', 'error-codes', 'partner.quotes.reservation.against-a-checkout'],
];

/** The checks of rules the kit once never exercised (issue 34, from raw-body-bytes on): each fails only with its fault. */
const NEW_RULES = [
  ...new Set(CASES.slice(CASES.findIndex(([fault]) => fault === 'body-hash-reserialised')).map(([, , id]) => id!)),
];

/** What a check needs run before it: the webhooks checks use the receiver partner.webhooks.register registers. */
const withPrerequisites = (ids: string[]) =>
  ids.some((id) => id.startsWith('partner.webhooks.')) ? ['partner.webhooks.register', ...ids] : ids;

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** Runs `only` (a family, or one requirement ID) against the reference server with the fault; its failures. */
async function failuresWith(fault: Fault | undefined, ...only: string[]) {
  return (await resultsWith(fault, ...only)).filter((r) => r.status === 'failed');
}

async function resultsWith(fault: Fault | undefined, ...only: string[]) {
  const server = await startReferenceServer(fault ? new Set([fault]) : undefined);
  stop = server.stop;
  const { results } = await runConformance({
    baseUrl: server.url,
    adminToken: server.adminToken,
    only,
    seed: 7,
    numRuns: 10,
    reference: true,
  });
  expect(results.length).toBeGreaterThan(0);
  return results;
}

describe('proof of power', () => {
  it.each(CASES)(
    'fault "%s" makes the %s family fail',
    async (fault, family, id) => {
      // A case that names its check runs only that check (the family's other checks are not what it proves).
      const failed = await failuresWith(fault, ...(id ? withPrerequisites([id]) : [family]));
      expect(
        failed.map((r) => r.check),
        `no ${family} check noticed ${fault}`,
      ).not.toEqual([]);
      if (id)
        expect(
          failed.map((r) => r.id),
          `${id} did not notice ${fault}`,
        ).toContain(id);
    },
    timing.timeout(150, 150_000),
  );

  it(
    'every family but schema passes on the same server without the fault (the failures are the fault’s)',
    async () => {
      for (const family of new Set(CASES.map(([, f]) => f).filter((f) => f !== 'schema'))) {
        expect(await failuresWith(undefined, family), family).toEqual([]);
        await stop?.();
        stop = undefined;
      }
    },
    timing.timeout(1500, 1_500_000),
  );

  it(
    'the checks of the newly exercised rules pass on the same server without a fault',
    async () => {
      const results = await resultsWith(undefined, ...withPrerequisites(NEW_RULES));
      expect(
        results.filter((r) => r.status !== 'passed').map((r) => `${r.id} ${r.status}: ${r.message ?? ''}`),
      ).toEqual([]);
      expect(results.map((r) => r.id).sort()).toEqual(withPrerequisites(NEW_RULES).sort());
    },
    timing.timeout(600, 600_000),
  );

  it('every partner family is covered by at least one fault', () => {
    const covered = new Set(CASES.map(([, family]) => family));
    const partner = ALL_FAMILIES.filter((f) => f.surface === 'partner').map((f) => f.name);
    expect(partner.filter((name) => !covered.has(name))).toEqual([]);
  });
});
