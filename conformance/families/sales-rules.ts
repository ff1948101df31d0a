// Business rules of referral sales and brokerage, followed through the operations a partner and
// its buyers use, with the operator API moving the test clock and the orders:
// - attribution (`x-attribution-window-days` of createLink; seed: referral links): a hosted-checkout
//   sale is attributed to a click at most that many days old, never to an older one;
// - the commission ledger (`x-balance-effect` of CommissionStatus; seed: "a running balance"):
//   each row's balance_cents is the previous one plus its amount (accrued), unchanged (pending)
//   or minus it (paid_out, reversed), through a settlement, a refund and a payout;
// - brokerage eligibility (seed: "ineligible if … already has an open case"): a domain with an
//   open case, whoever opened it, is ineligible (`open_case`) and a second case is refused; a
//   domain listed for sale is ineligible (`listed`; seed: a case acquires a domain not listed).
import { CheckFailure, CheckSkipped, expect, expectStatus, oncePerRun, type Context, type Family } from '../context.ts';
import { jsonOf, type Credentials, type Exchange } from '../http.ts';
import { cookieHeader } from '../oauth-flow.ts';
import { openCheckout, operatorMove, payCheckout } from './checkout-support.ts';
import { expectCode } from './errors.ts';
import { listedDomain, listedDomains, partnerOp, partnerScopes, unlistedDomain } from './orders-support.ts';

type Partner = Credentials & { partnerId: string };
type Json = Record<string, unknown>;

const DAY_S = 86_400;

function needAdmin(ctx: Context): asserts ctx is Context & { admin: NonNullable<Context['admin']> } {
  if (!ctx.admin) throw CheckSkipped.need('admin');
}

/** A partner of the check's own, with every scope and an affiliate account (its test clock is the check's). */
const affiliate = (ctx: Context): Promise<Partner> => ctx.mint(partnerScopes(ctx), { affiliate: true });

async function advance(ctx: Context, who: Partner, seconds: number): Promise<void> {
  needAdmin(ctx);
  const res = await ctx.admin.post(`/partners/${who.partnerId}/clock/advance`, { seconds });
  if (res.status !== 200)
    throw new CheckFailure(`advancing the test clock ${seconds} s answered ${res.status}`, [res.exchange]);
}

/** A referral link of the partner (POST /links) and a click on it: the cookies its redirect set. */
async function linkAndClick(
  ctx: Context,
  who: Partner,
): Promise<{ linkId: string; cookie: string; exchanges: Exchange[] }> {
  const op = partnerOp(ctx, 'createLink');
  const created = await ctx.http.signed({
    method: 'POST',
    target: op.operation.path,
    credentials: who,
    body: JSON.stringify({ type: 'generic' }),
    operation: op.operation,
    rateClass: op.rateClass,
  });
  expectStatus(created, 201, 'creating a referral link (the partner has an affiliate account)');
  const link = jsonOf(created) as { link_id?: string; url?: string };
  expect(typeof link.url === 'string' && typeof link.link_id === 'string', 'the new link has no url or link_id', [
    created,
  ]);
  const url = new URL(link.url);
  const click = await ctx.http.send({
    target: `${url.pathname}${url.search}`,
    operation: { method: 'GET', path: '/r/{code}' },
    rateClass: 'public',
  });
  expectStatus(click, 302, `following the link ${link.url} (a click)`);
  const cookie = cookieHeader(click);
  expect(cookie !== '', `following ${link.url} set no cookie: a buyer's browser would carry no click to the checkout`, [
    click,
  ]);
  return { linkId: link.link_id, cookie, exchanges: [created, click] };
}

/** A hosted-checkout sale of a listed domain, paid with the buyer's cookies. */
async function referredSale(
  ctx: Context,
  who: Partner,
  domain: { domain: string; price: number; currency: string },
  cookie: string,
): Promise<string> {
  return (await payCheckout(ctx, await openCheckout(ctx, who, domain), cookie)).publicId;
}

/** Every row of a partner list (limit from the contract's maximum). */
async function readAll(
  ctx: Context,
  operationId: string,
  who: Partner,
): Promise<{ rows: Json[]; body: Json; exchanges: Exchange[] }> {
  const op = partnerOp(ctx, operationId);
  const rows: Json[] = [];
  const exchanges: Exchange[] = [];
  let cursor: string | null = null;
  let body: Json;
  for (let page = 0; page < 100; page++) {
    const e = await ctx.http.signed({
      target: `${op.operation.path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      credentials: who,
      operation: op.operation,
      rateClass: op.rateClass,
    });
    exchanges.push(e);
    expectStatus(e, 200, `GET ${op.operation.path}`);
    body = jsonOf(e) as Json;
    rows.push(...((body.data as Json[] | undefined) ?? []));
    cursor = typeof body.next_cursor === 'string' ? body.next_cursor : null;
    if (!cursor) return { rows, body, exchanges };
  }
  throw new CheckFailure(`GET ${op.operation.path} did not end within 100 pages`, exchanges.slice(-1));
}

/** x-balance-effect of CommissionStatus: status → +1 (credit), 0 (none), -1 (debit). */
function balanceEffects(ctx: Context): Record<string, number> {
  const schemas = (ctx.spec.documents.partner.components as { schemas: Record<string, Json> }).schemas;
  const effects = (schemas.CommissionStatus?.['x-balance-effect'] ?? {}) as Record<string, string>;
  const sign: Record<string, number> = { credit: 1, none: 0, debit: -1 };
  const out: Record<string, number> = {};
  for (const [status, effect] of Object.entries(effects)) {
    if (!(effect in sign)) throw new Error(`x-balance-effect of ${status} is "${effect}", not credit, none or debit`);
    out[status] = sign[effect]!;
  }
  if (Object.keys(out).length === 0) throw new Error('the partner document has no CommissionStatus x-balance-effect');
  return out;
}

/** GET /brokerage/eligibility for `domain` as `who`: a 200 and its body. */
async function askEligibility(ctx: Context, who: Credentials, domain: string) {
  const eligibility = partnerOp(ctx, 'getBrokerageEligibility');
  const e = await ctx.http.signed({
    target: `${eligibility.operation.path}?domain=${domain}`,
    credentials: who,
    operation: eligibility.operation,
    rateClass: eligibility.rateClass,
  });
  expectStatus(e, 200, `GET ${eligibility.operation.path}?domain=${domain}`);
  return { e, body: jsonOf(e) as { eligible?: unknown; reason?: unknown } };
}

/** POST /brokerage for `domain` as `who`; `deliberate`: a refusal is what the check expects. */
function openBrokerageCase(ctx: Context, who: Credentials, domain: string, deliberate: boolean) {
  const create = partnerOp(ctx, 'createBrokerageCase');
  return ctx.http.signed({
    method: 'POST',
    target: create.operation.path,
    credentials: who,
    body: JSON.stringify({ domain, tier: 'self_serve', buyer_email: 'buyer.conformance@example.org', budget: 500000 }),
    operation: create.operation,
    rateClass: create.rateClass,
    deliberate,
  });
}

export const salesRulesFamily: Family = {
  name: 'sales-rules',
  surface: 'partner',
  description:
    'Referral attribution inside its window only, the commission ledger’s running balance through settlement, refund and payout, brokerage eligibility with an open case',
  needs: ['credentials', 'writes'],
  checks: [
    {
      id: 'partner.referral.attribution-window',
      rules: [
        'spec:partner:createLink#/x-attribution-window-days',
        'spec:partner:createLink#/description',
        'seed:partner › Resources and their fields › Referral links and reporting records',
      ],
      name: 'a hosted-checkout sale is attributed to a click one day inside x-attribution-window-days (listed in GET /me/sales with the link), and not to the same click one day past it',
      needs: ['admin'],
      async run(ctx) {
        needAdmin(ctx);
        const days = ctx.spec.extension<number>('partner', 'x-attribution-window-days', 'createLink');
        expect(typeof days === 'number' && days > 1, 'the contract states no x-attribution-window-days of createLink');
        const who = await affiliate(ctx);
        const [inside, outside] = await listedDomains(ctx, who, 2);
        const { linkId, cookie } = await linkAndClick(ctx, who);
        await advance(ctx, who, (days - 1) * DAY_S);
        const attributed = await referredSale(ctx, who, inside!, cookie);
        await advance(ctx, who, 2 * DAY_S);
        const late = await referredSale(ctx, who, outside!, cookie);
        const { rows, exchanges } = await readAll(ctx, 'listReferralSales', who);
        const sale = rows.find((r) => r.public_id === attributed);
        expect(
          sale !== undefined && sale.link_id === linkId,
          `the sale ${attributed}, paid ${days - 1} days after a click on ${linkId} (inside the ${days}-day window), is ${sale ? `attributed to ${String(sale.link_id)}` : 'not in GET /me/sales'}`,
          exchanges.slice(-1),
        );
        expect(
          !rows.some((r) => r.public_id === late),
          `the sale ${late}, paid ${days + 1} days after the only click the buyer brought, is attributed in GET /me/sales; the window is ${days} days (x-attribution-window-days)`,
          exchanges.slice(-1),
        );
      },
    },
    {
      id: 'partner.referral.ledger-balance',
      rules: [
        'spec:partner#/components/schemas/CommissionStatus/x-balance-effect',
        'spec:partner#/components/schemas/CommissionEntry',
        'spec:partner:listCommissions#/description',
        'seed:partner › Resources and their fields › Referral links and reporting records',
      ],
      name: "the commission ledger's balance_cents follows x-balance-effect row by row (accrued adds, pending keeps, paid_out and reversed subtract) through two referred sales, a settlement, a refund and a payout; the list's balance_cents is the last row's",
      needs: ['admin'],
      async run(ctx) {
        needAdmin(ctx);
        const effects = balanceEffects(ctx);
        const who = await affiliate(ctx);
        const [kept, refunded] = await listedDomains(ctx, who, 2);
        const { cookie } = await linkAndClick(ctx, who);
        const a = await referredSale(ctx, who, kept!, cookie);
        const b = await referredSale(ctx, who, refunded!, cookie);
        await operatorMove(ctx, a, 'start-transfer');
        await operatorMove(ctx, a, 'confirm-delivery');
        const run = await ctx.admin.post('/settlements/run', {});
        if (run.status !== 200) throw new CheckFailure(`the settlement run answered ${run.status}`, [run.exchange]);
        await operatorMove(ctx, b, 'refund');
        const before = await readAll(ctx, 'listCommissions', who);
        const accruedA = before.rows.find((r) => r.public_id === a && r.status === 'accrued');
        expect(
          accruedA !== undefined && typeof accruedA.amount_cents === 'number',
          `the ledger has no accrued row for the referred sale ${a}`,
          before.exchanges.slice(-1),
        );
        const payout = await ctx.admin.post('/payouts', {
          partner_id: who.partnerId,
          amount_cents: accruedA.amount_cents,
          kind: 'referral_commission',
        });
        if (payout.status !== 201 && payout.status !== 200)
          throw new CheckFailure(`recording a referral payout answered ${payout.status}`, [payout.exchange]);
        const { rows, body, exchanges } = await readAll(ctx, 'listCommissions', who);
        const expectedRows: Array<[string, string]> = [
          [a, 'accrued'],
          [b, 'accrued'],
          [a, 'pending'],
          [b, 'reversed'],
          [a, 'paid_out'],
        ];
        const missing = expectedRows.filter(
          ([id, status]) => !rows.some((r) => r.public_id === id && r.status === status),
        );
        expect(
          missing.length === 0,
          `the ledger lacks ${missing.map(([id, s]) => `${s} for ${id}`).join(', ')} (rows: ${rows.map((r) => `${String(r.public_id)} ${String(r.status)}`).join(', ')})`,
          exchanges.slice(-1),
        );
        // Oldest first: each row's balance is the previous one moved by its own effect.
        let balance = 0;
        for (const r of rows) {
          const effect = effects[String(r.status)];
          expect(
            effect !== undefined,
            `a ledger row has status ${String(r.status)}, not one of CommissionStatus`,
            exchanges.slice(-1),
          );
          balance += effect * Number(r.amount_cents);
          expect(
            r.balance_cents === balance,
            `the ${String(r.status)} row of ${String(r.public_id)} (${String(r.amount_cents)} cents) says balance_cents ${String(r.balance_cents)}; after the rows before it and this one's effect (x-balance-effect: ${String(r.status)} ${effect > 0 ? 'adds' : effect < 0 ? 'subtracts' : 'keeps'}) it is ${balance}`,
            exchanges.slice(-1),
          );
        }
        expect(
          body.balance_cents === balance,
          `the ledger's balance_cents is ${String(body.balance_cents)}, its last row's is ${balance}`,
          exchanges.slice(-1),
        );
      },
    },
    {
      id: 'partner.brokerage.eligibility.open-case',
      rules: [
        'spec:partner:getBrokerageEligibility#/description',
        'spec:partner#/components/schemas/BrokerageEligibility',
        'seed:partner › Endpoints › Brokerage',
      ],
      name: 'a domain with an open brokerage case is ineligible (eligible false, reason open_case) for its partner and any other, and a second case for it is 409 invalid_state',
      async run(ctx) {
        const opener: Credentials = ctx.admin
          ? await oncePerRun(ctx, 'sales-rules broker A', () => ctx.mint(['broker', 'report']))
          : await ctx.credentials();
        // Another partner asks too: "whoever opened it".
        const other: Credentials = ctx.admin ? await ctx.mint(['broker', 'report']) : opener;
        const domain = unlistedDomain();
        const ask = (who: Credentials) => askEligibility(ctx, who, domain);
        const fresh = await ask(opener);
        expect(
          fresh.body.eligible === true && fresh.body.reason === null,
          `${domain} (a name no case was opened for) is eligible ${String(fresh.body.eligible)} (${String(fresh.body.reason)}); expected eligible true, reason null`,
          [fresh.e],
        );
        const open = (deliberate: boolean) => openBrokerageCase(ctx, opener, domain, deliberate);
        expectStatus(await open(false), 201, `opening a brokerage case for ${domain}`);
        for (const [who, whose] of [
          [opener, 'the partner that opened it'],
          [other, 'another partner'],
        ] as const) {
          const after = await ask(who);
          expect(
            after.body.eligible === false && after.body.reason === 'open_case',
            `with a case open for ${domain}, its eligibility for ${whose} is eligible ${String(after.body.eligible)}, reason ${JSON.stringify(after.body.reason)}; expected false, open_case`,
            [after.e],
          );
        }
        expectCode(ctx, await open(true), 'invalid_state', `a second case for ${domain}, which has an open one`);
      },
    },
    {
      id: 'partner.brokerage.eligibility.listed',
      rules: [
        'spec:partner:getBrokerageEligibility#/description',
        'spec:partner:createBrokerageCase#/description',
        'seed:partner › What the service does',
      ],
      name: 'a domain listed for sale is ineligible for brokerage (eligible false, reason listed), and a case for it is 409 invalid_state naming listed',
      async run(ctx) {
        const who: Credentials = ctx.admin ? await ctx.mint(['search', 'broker']) : await ctx.credentials();
        const { domain } = await listedDomain(ctx, who);
        const { e: asked, body } = await askEligibility(ctx, who, domain);
        expect(
          body.eligible === false && body.reason === 'listed',
          `${domain}, listed for sale, is eligible ${String(body.eligible)}, reason ${JSON.stringify(body.reason)}; expected false, listed (brokerage acquires domains that are not listed)`,
          [asked],
        );
        const opened = await openBrokerageCase(ctx, who, domain, true);
        expectCode(ctx, opened, 'invalid_state', `a brokerage case for ${domain}, which is listed for sale`);
        const message = (jsonOf(opened) as { message?: unknown }).message;
        expect(
          typeof message === 'string' && message.includes('listed'),
          `the refusal of a case for a listed domain does not name the reason listed: ${JSON.stringify(message)}`,
          [opened],
        );
      },
    },
  ],
};
