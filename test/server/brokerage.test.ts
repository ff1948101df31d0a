// Brokerage end to end over HTTP: eligibility (active_site, listed, open_case), opening cases, reading
// and listing one's own, every operator move the admin contract's x-transitions allows or forbids,
// the events each writes (and the webhook delivery of brokerage.case_completed), and the buyer's
// no-login progress page as HTML and as JSON.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { adminDoc, partnerDoc } from './support/contract.ts';
import { WELL_KNOWN_NAMES } from '../../server/inventory/generate.ts';
import {
  createOrder,
  databases,
  expectError,
  expectRateLimitHeaders,
  signedRequest,
  toReply,
  type Credential,
} from './support/http.ts';
import { startReceiver, type Receiver } from './support/receiver.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };
const RFC3339_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface CaseTransition {
  from: string[];
  to: string;
  event: string;
  webhook: boolean;
  requires: string[];
}
const TRANSITIONS = adminDoc.paths['/api/admin/v1/brokerage/{case_id}/{action}']?.post?.['x-transitions'] as Record<
  string,
  CaseTransition
>;
const STATUSES = partnerDoc.components.schemas.BrokerageStatus?.enum as string[];
const ACTIVE_SITE = 'dailygrind.com';

/** The shortest list of operator moves from `open` to each status, walked from x-transitions. */
function pathsFromOpen(): Map<string, string[]> {
  const paths = new Map<string, string[]>([['open', []]]);
  const queue = ['open'];
  while (queue.length > 0) {
    const status = queue.shift()!;
    for (const [action, t] of Object.entries(TRANSITIONS)) {
      if (t.from.includes(status) && !paths.has(t.to)) {
        paths.set(t.to, [...paths.get(status)!, action]);
        queue.push(t.to);
      }
    }
  }
  return paths;
}

const freshDomain = () => `brk-${randomUUID().slice(0, 12)}.com`;
const bodyFor = (action: string) =>
  TRANSITIONS[action]!.requires.includes('final_price_cents') ? { final_price_cents: 123_456 } : undefined;

describe.each(databases())('brokerage ($name)', ({ databaseUrl }) => {
  let h: Harness;
  let broker: Credential;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: 50 });
    broker = await h.mint({ scopes: ['broker', 'report', 'webhook'], rate_limits: HIGH });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await h?.close();
  });

  const mintBroker = () => h.mint({ scopes: ['broker', 'report', 'webhook'], rate_limits: HIGH });
  const eligibility = (c: Credential, domain: string) =>
    signedRequest(h, c, { path: `${V1}/brokerage/eligibility`, query: `domain=${domain}` });
  const open = (c: Credential, body: Record<string, unknown>) =>
    signedRequest(h, c, { method: 'POST', path: `${V1}/brokerage`, body });
  const caseBody = (domain = freshDomain(), extra: Record<string, unknown> = {}) => ({
    domain,
    tier: 'managed',
    buyer_email: 'jane.doe@example.org',
    budget: 500_000,
    ...extra,
  });
  const openCase = async (c: Credential, domain = freshDomain()) => {
    const r = await open(c, caseBody(domain));
    expect(r.status, r.text).toBe(201);
    return r.body;
  };
  const getCase = (c: Credential, caseId: string) => signedRequest(h, c, { path: `${V1}/brokerage/${caseId}` });
  const act = async (caseId: string, action: string, body?: unknown) =>
    toReply(await h.admin(`/brokerage/${caseId}/${action}`, body));
  const moveTo = async (caseId: string, status: string) => {
    for (const action of pathsFromOpen().get(status)!) {
      const r = await act(caseId, action, bodyFor(action));
      expect(r.status, `${action}: ${r.text}`).toBe(200);
    }
  };
  const events = async (c: Credential) => {
    const r = await signedRequest(h, c, { path: `${V1}/events`, query: 'limit=1000' });
    expect(r.status, r.text).toBe(200);
    return r.body.events as any[];
  };
  const progress = (url: string, accept?: string) => fetch(url, accept ? { headers: { accept } } : {}).then(toReply);

  describe('eligibility', () => {
    it('an unknown domain is eligible; the active-site fixture is not', async () => {
      const domain = freshDomain();
      const ok = await eligibility(broker, domain);
      expect(ok.status, ok.text).toBe(200);
      expectRateLimitHeaders(ok);
      expect(ok.body).toEqual({ domain, eligible: true, reason: null });
      const active = await eligibility(broker, ACTIVE_SITE);
      expect(active.body).toEqual({ domain: ACTIVE_SITE, eligible: false, reason: 'active_site' });
    });

    it('a domain with an open case is open_case for every partner, until the case is final', async () => {
      const other = await mintBroker();
      const domain = freshDomain();
      const opened = await openCase(broker, domain);
      for (const c of [broker, other])
        expect((await eligibility(c, domain)).body).toEqual({ domain, eligible: false, reason: 'open_case' });
      await moveTo(opened.case_id, 'negotiating');
      expect((await eligibility(other, domain)).body.reason).toBe('open_case');
      expect((await act(opened.case_id, 'no-deal')).status).toBe(200);
      expect((await eligibility(other, domain)).body).toEqual({ domain, eligible: true, reason: null });
      expect((await open(other, caseBody(domain))).status).toBe(201);
    });

    it('needs the broker scope and a domain', async () => {
      const reporter = await h.mint({ scopes: ['report'], rate_limits: HIGH });
      expectError(await eligibility(reporter, freshDomain()), 'forbidden');
      expectError(await signedRequest(h, broker, { path: `${V1}/brokerage/eligibility` }), 'validation_error');
    });
  });

  describe('opening a case', () => {
    it('201 with the case, its progress_url behind an unguessable token, and brokerage.case_opened in the history', async () => {
      const partner = await mintBroker();
      const domain = freshDomain();
      const r = await open(
        partner,
        caseBody(domain, { tier: 'self_serve', budget: 150_000, buyer_email: 'sam.ortiz@example.com' }),
      );
      expect(r.status, r.text).toBe(201);
      expectRateLimitHeaders(r);
      expect(r.body).toEqual({
        case_id: expect.stringMatching(/^brk_[0-9A-Za-z]{6,40}$/),
        domain,
        tier: 'self_serve',
        status: 'open',
        buyer_email: 'sam.ortiz@example.com',
        budget_cents: 150_000,
        currency: 'USD',
        final_price_cents: null,
        progress_url: expect.stringMatching(new RegExp(`^${h.baseUrl}/brokerage/progress/[A-Za-z0-9_-]{43}$`)),
        created_at: expect.stringMatching(RFC3339_Z),
        updated_at: r.body.created_at,
      });
      expect(r.body.progress_url).not.toContain(r.body.case_id.slice(4));
      const again = await openCase(partner);
      expect(again.progress_url).not.toBe(r.body.progress_url);
      const history = (await events(partner)).filter((e) => e.data.case?.case_id === r.body.case_id);
      expect(history).toEqual([
        {
          id: expect.stringMatching(/^evt_/),
          type: 'brokerage.case_opened',
          created_at: r.body.created_at,
          partner_id: partner.partner_id,
          data: {
            case: {
              case_id: r.body.case_id,
              domain,
              tier: 'self_serve',
              status: 'open',
              final_price_cents: null,
              currency: 'USD',
            },
          },
        },
      ]);
    });

    it('an ineligible domain is 409 invalid_state naming the reason', async () => {
      const active = await open(broker, caseBody(ACTIVE_SITE));
      expectError(active, 'invalid_state');
      expect(active.body.message).toContain('active_site');
      const domain = freshDomain();
      await openCase(broker, domain);
      const taken = await open(await mintBroker(), caseBody(domain));
      expectError(taken, 'invalid_state');
      expect(taken.body.message).toContain('open_case');
    });

    it('a domain listed for sale is ineligible (listed) and refused with 409 naming it; once sold it is eligible', async () => {
      // Brokerage acquires domains that are not listed (createBrokerageCase; probe L2).
      const listed = WELL_KNOWN_NAMES[1]!;
      const other = await mintBroker();
      for (const c of [broker, other])
        expect((await eligibility(c, listed.domain)).body).toEqual({
          domain: listed.domain,
          eligible: false,
          reason: 'listed',
        });
      const refused = await open(broker, caseBody(listed.domain));
      expectError(refused, 'invalid_state');
      expect(refused.body.message).toBe(`Domain "${listed.domain}" is not eligible for brokerage: listed`);
      // Nothing was opened: the refusal leaves no case that would block another partner.
      expect((await open(other, caseBody(listed.domain))).body.message).toContain(': listed');
      const buyer = await h.mint({ scopes: ['buy'], rate_limits: HIGH });
      await createOrder(h, buyer, { domain: listed.domain, price: listed.price_cents, currency: 'USD' });
      expect((await eligibility(broker, listed.domain)).body).toEqual({
        domain: listed.domain,
        eligible: true,
        reason: null,
      });
    });

    it('concurrent opens of one domain make exactly one case', async () => {
      const domain = freshDomain();
      const partners = await Promise.all([mintBroker(), mintBroker(), mintBroker(), mintBroker()]);
      const replies = await Promise.all(partners.map((p) => open(p, caseBody(domain))));
      expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of replies.filter((x) => x.status !== 201)) expectError(r, 'invalid_state');
    });

    it('refuses a bad body (400) and a credential without the broker scope (403)', async () => {
      expectError(await open(broker, caseBody(freshDomain(), { budget: 0 })), 'validation_error');
      // An integer JSON Schema allows but no answer could carry (issue 31): refused, nothing opened.
      for (const budget of [1e300, 2 ** 53]) {
        const r = await open(broker, caseBody(freshDomain(), { budget }));
        expectError(r, 'validation_error');
        expect(JSON.stringify(r.body.details)).toContain('/body/budget');
      }
      expectError(await open(broker, caseBody(freshDomain(), { tier: 'vip' })), 'validation_error');
      expectError(await open(broker, caseBody(freshDomain(), { extra: 1 })), 'validation_error');
      const { buyer_email: _omit, ...noEmail } = caseBody();
      expectError(await open(broker, noEmail), 'validation_error');
      const buyer = await h.mint({ scopes: ['buy', 'report'], rate_limits: HIGH });
      expectError(await open(buyer, caseBody()), 'forbidden');
    });
  });

  describe('reading cases', () => {
    it('GET /brokerage/{case_id}: the own case with its timeline; another partner’s or an unknown one is 404', async () => {
      const opened = await openCase(broker);
      await moveTo(opened.case_id, 'contacting_owner');
      const r = await getCase(broker, opened.case_id);
      expect(r.status, r.text).toBe(200);
      expectRateLimitHeaders(r);
      expect(r.body).toEqual({
        ...opened,
        status: 'contacting_owner',
        updated_at: expect.stringMatching(RFC3339_Z),
        timeline: [
          { status: 'open', at: opened.created_at, note: null },
          { status: 'contacting_owner', at: expect.stringMatching(RFC3339_Z), note: null },
        ],
      });
      expectError(await getCase(await mintBroker(), opened.case_id), 'not_found');
      expectError(await getCase(broker, 'brk_0000000000'), 'not_found');
    });

    it('GET /brokerage (scope report): own cases newest first, paged by cursor, filtered by status', async () => {
      const partner = await mintBroker();
      const stranger = await mintBroker();
      await openCase(stranger);
      const made: any[] = [];
      for (let i = 0; i < 5; i++) {
        made.push(await openCase(partner));
        h.clock.advance(1000);
      }
      await moveTo(made[1].case_id, 'deal_closed');
      const list = (query: string, c: Credential = partner) => signedRequest(h, c, { path: `${V1}/brokerage`, query });

      const seen: string[] = [];
      let query = 'limit=2';
      for (let pages = 0; pages < 10; pages++) {
        const r = await list(query);
        expect(r.status, r.text).toBe(200);
        expectRateLimitHeaders(r);
        expect(r.body.data.length).toBeLessThanOrEqual(2);
        seen.push(...r.body.data.map((c: any) => c.case_id));
        if (r.body.next_cursor === null) break;
        query = `limit=2&cursor=${encodeURIComponent(r.body.next_cursor)}`;
      }
      expect(seen).toEqual(made.map((c) => c.case_id).reverse());

      const closed = await list('status=deal_closed');
      expect(closed.body).toEqual({
        data: [
          {
            ...made[1],
            status: 'deal_closed',
            final_price_cents: 123_456,
            updated_at: expect.stringMatching(RFC3339_Z),
          },
        ],
        next_cursor: null,
      });
      const first = await list('limit=1');
      expectError(
        await list(`limit=1&status=open&cursor=${encodeURIComponent(first.body.next_cursor)}`),
        'invalid_cursor',
      );
      expectError(await list('limit=1&cursor=not-a-cursor'), 'invalid_cursor');
      const windowed = await list(`from=${encodeURIComponent(made[3].created_at)}`);
      expect(windowed.body.data.map((c: any) => c.case_id)).toEqual([made[4].case_id, made[3].case_id]);

      const noReport = await h.mint({ scopes: ['broker'], rate_limits: HIGH });
      expectError(await list('', noReport), 'forbidden');
    });
  });

  describe('operator moves (admin x-transitions)', () => {
    const reachable = pathsFromOpen();

    it('every status is reachable from open', () => {
      expect([...reachable.keys()].sort()).toEqual([...STATUSES].sort());
    });

    for (const status of STATUSES) {
      for (const [action, t] of Object.entries(TRANSITIONS)) {
        const allowed = t.from.includes(status);
        it(`${action} from ${status}: ${allowed ? `200 → ${t.to}, ${t.event}` : '409 invalid_state, nothing changes'}`, async () => {
          const partner = await mintBroker();
          const opened = await openCase(partner);
          await moveTo(opened.case_id, status);
          const before = await getCase(partner, opened.case_id);
          const eventsBefore = await events(partner);
          h.clock.advance(1000);
          const r = await act(opened.case_id, action, { ...bodyFor(action), reason: `operator says ${action}` });
          if (!allowed) {
            expectError(r, 'invalid_state');
            expect(r.body.message).toContain(status);
            expect((await getCase(partner, opened.case_id)).body).toEqual(before.body);
            expect(await events(partner)).toEqual(eventsBefore);
            return;
          }
          expect(r.status, r.text).toBe(200);
          expect(r.body).toMatchObject({
            case_id: opened.case_id,
            partner_id: partner.partner_id,
            domain: opened.domain,
            tier: opened.tier,
            status: t.to,
            buyer_email: opened.buyer_email,
            budget_cents: opened.budget_cents,
            currency: 'USD',
            final_price_cents: t.to === 'deal_closed' ? 123_456 : null,
            created_at: opened.created_at,
          });
          expect(r.body.timeline.at(-1)).toEqual({
            status: t.to,
            at: r.body.updated_at,
            note: `operator says ${action}`,
          });
          expect(r.body.timeline).toHaveLength(before.body.timeline.length + 1);
          const after = await getCase(partner, opened.case_id);
          expect(after.body.status).toBe(t.to);
          expect(after.body.timeline).toEqual(r.body.timeline);
          const added = (await events(partner)).slice(eventsBefore.length);
          expect(added).toEqual([
            {
              id: expect.stringMatching(/^evt_/),
              type: t.event,
              created_at: r.body.updated_at,
              partner_id: partner.partner_id,
              data: {
                case: {
                  case_id: opened.case_id,
                  domain: opened.domain,
                  tier: opened.tier,
                  status: t.to,
                  final_price_cents: r.body.final_price_cents,
                  currency: 'USD',
                },
              },
            },
          ]);
        });
      }
    }

    it('close-deal needs final_price_cents; the other actions refuse it (400, nothing changes)', async () => {
      const opened = await openCase(broker);
      await moveTo(opened.case_id, 'negotiating');
      for (const body of [undefined, {}, { reason: 'agreed' }, { final_price_cents: 0 }]) {
        const r = await act(opened.case_id, 'close-deal', body);
        expectError(r, 'validation_error');
      }
      for (const action of Object.keys(TRANSITIONS).filter((a) => a !== 'close-deal')) {
        const r = await act(opened.case_id, action, { final_price_cents: 100 });
        expectError(r, 'validation_error');
        expect(r.body.details).toEqual([expect.objectContaining({ path: '/body/final_price_cents' })]);
      }
      expect((await getCase(broker, opened.case_id)).body.status).toBe('negotiating');
    });

    it('an unknown case is 404, an unknown action 400, a missing token 401', async () => {
      expectError(await act('brk_0000000000', 'cancel'), 'not_found');
      const opened = await openCase(broker);
      expectError(await act(opened.case_id, 'teleport'), 'validation_error');
      const r = await toReply(
        await fetch(`${h.baseUrl}/api/admin/v1/brokerage/${opened.case_id}/cancel`, { method: 'POST' }),
      );
      expect(r.status).toBe(401);
    });
  });

  describe('webhooks', () => {
    it('only brokerage.case_completed is delivered, with data.case', async () => {
      const partner = await mintBroker();
      const rx = await startReceiver();
      receivers.push(rx);
      const reg = await signedRequest(h, partner, {
        method: 'PUT',
        path: '/api/partner/webhooks',
        body: { url: rx.url, secret: `whsec_${randomUUID()}` },
      });
      expect(reg.status, reg.text).toBe(200);
      const opened = await openCase(partner);
      await moveTo(opened.case_id, 'deal_closed');
      const cancelled = await openCase(partner);
      expect((await act(cancelled.case_id, 'cancel')).status).toBe(200);
      const [delivery] = await rx.waitFor((d) => d.length >= 1, 5000, 'the case_completed delivery');
      // Give a wrongly delivered history-only event the chance to arrive before counting.
      await new Promise((r) => setTimeout(r, 200));
      expect(rx.deliveries).toHaveLength(1);
      expect(delivery!.headers['x-service-event-type']).toBe('brokerage.case_completed');
      expect(delivery!.body).toEqual({
        id: delivery!.headers['x-service-event-id'],
        type: 'brokerage.case_completed',
        created_at: expect.stringMatching(RFC3339_Z),
        partner_id: partner.partner_id,
        data: {
          case: {
            case_id: opened.case_id,
            domain: opened.domain,
            tier: 'managed',
            status: 'deal_closed',
            final_price_cents: 123_456,
            currency: 'USD',
          },
        },
      });
      const kinds = (await events(partner)).map((e) => e.type);
      expect(kinds).toEqual([
        'brokerage.case_opened',
        'brokerage.case_updated',
        'brokerage.case_updated',
        'brokerage.case_completed',
        'brokerage.case_opened',
        'brokerage.case_updated',
      ]);
    });
  });

  describe('the progress page', () => {
    it('serves accessible HTML with the status and timeline, and JSON on Accept: application/json', async () => {
      const opened = await openCase(broker);
      await moveTo(opened.case_id, 'negotiating');
      const html = await progress(opened.progress_url);
      expect(html.status).toBe(200);
      expect(html.headers.get('content-type')).toMatch(/^text\/html/);
      expect(html.headers.get('cache-control')).toBe('no-store');
      expect(html.text).toMatch(/^<!doctype html>/i);
      expect(html.text).toContain('<html lang="en">');
      expect(html.text).toContain(`<title>Acquiring ${opened.domain}</title>`);
      expect(html.text).toContain(`<h1>Acquiring ${opened.domain}</h1>`);
      expect(html.text).toContain('Negotiating with the owner');
      expect(html.text.match(/<li>/g)).toHaveLength(3);
      expect(html.text).not.toMatch(/<script/i);
      expect(html.text).not.toContain(opened.buyer_email);
      expect(html.text).not.toContain('500000');

      const json = await progress(opened.progress_url, 'application/json');
      expect(json.status).toBe(200);
      expect(json.headers.get('content-type')).toMatch(/^application\/json/);
      expect(json.body).toEqual({
        case_id: opened.case_id,
        domain: opened.domain,
        tier: 'managed',
        status: 'negotiating',
        created_at: opened.created_at,
        updated_at: expect.stringMatching(RFC3339_Z),
        final_price_cents: null,
        currency: 'USD',
        timeline: [
          { status: 'open', at: opened.created_at, note: null },
          { status: 'contacting_owner', at: expect.stringMatching(RFC3339_Z), note: null },
          { status: 'negotiating', at: expect.stringMatching(RFC3339_Z), note: null },
        ],
      });

      expect(
        (await act(opened.case_id, 'close-deal', { final_price_cents: 360_000, reason: 'Agreed <at> 3600 USD' }))
          .status,
      ).toBe(200);
      const closed = await progress(opened.progress_url);
      expect(closed.text).toContain('Deal closed');
      expect(closed.text).toContain('3,600.00 USD');
      expect(closed.text).toContain('Agreed &#60;at&#62; 3600 USD');
      expect((await progress(opened.progress_url, 'application/json')).body).toMatchObject({
        status: 'deal_closed',
        final_price_cents: 360_000,
      });
    });

    it('shows the agreed price from integer cents, exact up to 2^53 - 1 (never rounded through a float)', async () => {
      const opened = await openCase(broker);
      await moveTo(opened.case_id, 'negotiating');
      const closed = await act(opened.case_id, 'close-deal', { final_price_cents: Number.MAX_SAFE_INTEGER });
      expect(closed.status, closed.text).toBe(200);
      const html = await progress(opened.progress_url);
      expect(html.text).toContain('Agreed price: <strong>90,071,992,547,409.91 USD</strong>');
    });

    it('an unknown or malformed token is 404, as HTML or as the Error body', async () => {
      const unknown = `${h.baseUrl}/brokerage/progress/${'A'.repeat(43)}`;
      const html = await progress(unknown);
      expect(html.status).toBe(404);
      expect(html.headers.get('content-type')).toMatch(/^text\/html/);
      expect(html.text).toContain('<html lang="en">');
      const json = await progress(unknown, 'application/json');
      expectError(json, 'not_found');
      expect((await progress(`${h.baseUrl}/brokerage/progress/short`, 'application/json')).status).toBe(404);
    });
  });
});
