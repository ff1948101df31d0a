// x-quote-reservation and the description of POST /quotes: how long a partner's reservation lasts,
// its cool-down, how quotes decide against each other and against another partner's order made at
// the same instant (one after the other, never both), and that a hosted checkout opened before
// another partner's quote cannot be paid while that reservation lasts.
import { randomUUID } from 'node:crypto';
import { expect, expectStatus, type Check } from '../context.ts';
import { jsonOf, type Credentials } from '../http.ts';
import { openCheckout, submitPayment } from './checkout-support.ts';
import { expectCode } from './error-answer.ts';
import { advanceClock, listedDomain, needAdmin, orderRequest, postOrder, quoteDomain } from './orders-support.ts';

export const quoteReservationChecks: Check[] = [
  {
    id: 'partner.quotes.reservation.no-extension',
    rules: ['spec:partner:createQuote#/x-quote-reservation', 'seed:partner › Resources and their fields › Quote'],
    needs: ['admin'],
    name: "a quote while the partner's reservation is live answers a fresh quote_id with the same expires_at; once that end has passed (test clock) another partner may quote the domain",
    async run(ctx) {
      needAdmin(ctx);
      const holder = await ctx.mint(['search', 'buy']);
      const other = await ctx.mint(['search', 'buy']);
      const listed = await listedDomain(ctx, holder);
      const quote = (credentials: Credentials, deliberate: boolean) =>
        quoteDomain(ctx, credentials, listed.domain, deliberate);
      const first = await quote(holder, false);
      expectStatus(first, 200, `the first partner quotes ${listed.domain}`);
      const { quote_id, expires_at } = jsonOf(first) as { quote_id?: unknown; expires_at?: unknown };
      await advanceClock(ctx, holder, 300);
      const again = await quote(holder, false);
      expectStatus(again, 200, 'the same partner quotes the domain again 300 s later (test clock)');
      const second = jsonOf(again) as { quote_id?: unknown; expires_at?: unknown };
      expect(second.quote_id !== quote_id, `a quote 300 s later answered the same quote_id ${String(quote_id)}`, [
        first,
        again,
      ]);
      expect(
        second.expires_at === expires_at,
        `a quote while the reservation is live moved its end: expires_at ${String(expires_at)} → ${String(second.expires_at)} (x-quote-reservation extends: false)`,
        [first, again],
      );
      await advanceClock(ctx, holder, 301);
      const taken = await quote(other, true);
      expectStatus(
        taken,
        200,
        "another partner quotes the domain 601 s after the holder's first quote (the reservation ended, however it was re-quoted)",
      );
    },
  },
  {
    id: 'partner.quotes.reservation.one-at-a-time',
    rules: ['spec:partner:createQuote#/description'],
    needs: ['admin'],
    name: 'partners quoting one domain at the same instant: exactly one reserves it (200), every other gets 409 domain_reserved',
    async run(ctx) {
      needAdmin(ctx);
      const partners = await Promise.all(Array.from({ length: 6 }, () => ctx.mint(['search', 'buy'])));
      // A race shows only sometimes: three domains, each quoted by all at once.
      for (let round = 1; round <= 3; round++) {
        const listed = await listedDomain(ctx, partners[0] as Credentials);
        const answers = await Promise.all(partners.map((p) => quoteDomain(ctx, p, listed.domain, true)));
        const reserved = answers.filter((a) => a.status === 200);
        expect(
          reserved.length === 1,
          `${partners.length} partners quoted ${listed.domain} at once (round ${round}): ${reserved.length} answers 200, expected exactly one reservation`,
          answers,
        );
        for (const refused of answers.filter((a) => a.status !== 200))
          expectCode(
            ctx,
            refused,
            'domain_reserved',
            `a quote of ${listed.domain} while another partner's is being made`,
          );
      }
    },
  },
  {
    id: 'partner.quotes.reservation.against-an-order',
    rules: ['spec:partner:createQuote#/description'],
    needs: ['admin'],
    name: "a quote and another partner's order of one domain at the same instant are decided one after the other: the quote 200 and the order 409 domain_reserved, or the order 201 and the quote 404 not_found, never both",
    async run(ctx) {
      needAdmin(ctx);
      const [quoter, buyer] = await Promise.all([ctx.mint(['search', 'buy']), ctx.mint(['search', 'buy'])]);
      // A race shows only sometimes: three domains, each quoted and ordered at once.
      for (let round = 1; round <= 3; round++) {
        const listed = await listedDomain(ctx, buyer);
        const [quote, order] = await Promise.all([
          quoteDomain(ctx, quoter, listed.domain, true),
          postOrder(ctx, {
            credentials: buyer,
            body: JSON.stringify(orderRequest(listed)),
            key: randomUUID(),
            deliberate: true,
          }),
        ]);
        const at = `${listed.domain} quoted by one partner and ordered by another at once (round ${round})`;
        expect(
          !(quote.status === 200 && order.status === 201),
          `${at}: the quote answered 200 (a reservation) and the order 201 (a sale): both`,
          [quote, order],
        );
        if (quote.status === 200) expectCode(ctx, order, 'domain_reserved', `${at}: the order after the quote`);
        else {
          expectCode(ctx, quote, 'not_found', `${at}: the quote after the order`);
          expectStatus(order, 201, `${at}: the order before the quote`);
        }
      }
    },
  },
  {
    id: 'partner.quotes.reservation.against-a-checkout',
    rules: [
      'spec:partner:createQuote#/description',
      'spec:partner:createCheckoutSession#/description',
      'spec:public:payCheckout#/description',
    ],
    needs: ['admin'],
    name: "a hosted checkout opened before another partner's quote is not paid while that reservation lasts (409, nothing sold), and pays once it has ended (test clock)",
    async run(ctx) {
      needAdmin(ctx);
      const [seller, quoter] = await Promise.all([ctx.mint(['search', 'buy', 'embed']), ctx.mint(['search', 'buy'])]);
      const listed = await listedDomain(ctx, seller);
      const session = await openCheckout(ctx, seller, listed);
      expectStatus(
        await quoteDomain(ctx, quoter, listed.domain, false),
        200,
        `another partner quotes ${listed.domain} after the checkout session was opened`,
      );
      const refused = await submitPayment(ctx, session, { deliberate: true });
      expectStatus(refused.paid, 409, "the buyer pays while the other partner's reservation is live");
      await advanceClock(ctx, quoter, 601);
      const paid = await submitPayment(ctx, session);
      expectStatus(
        paid.paid,
        303,
        "the buyer pays the same checkout once the other partner's reservation has ended (its test clock 601 s on): the first payment charged nothing and left the domain listed",
      );
    },
  },
  {
    id: 'partner.quotes.reservation.cooldown',
    rules: ['spec:partner:createQuote#/x-quote-reservation', 'spec:partner:createQuote#/description'],
    needs: ['admin'],
    name: 'once a reservation ended without an order, its partner is 409 quote_cooldown with Retry-After for that domain (test clock); another partner may quote it',
    async run(ctx) {
      needAdmin(ctx);
      const holder = await ctx.mint(['search', 'buy']);
      const other = await ctx.mint(['search', 'buy']);
      const listed = await listedDomain(ctx, holder);
      expectStatus(
        await quoteDomain(ctx, holder, listed.domain, false),
        200,
        `the first partner quotes ${listed.domain}`,
      );
      await advanceClock(ctx, holder, 601);
      const cooling = await quoteDomain(ctx, holder, listed.domain, true);
      expectCode(ctx, cooling, 'quote_cooldown', 'the same partner quotes the domain 1 s after its reservation ended');
      const retryAfter = cooling.responseHeaders['retry-after'];
      expect(
        typeof retryAfter === 'string' &&
          /^\d+$/.test(retryAfter) &&
          Number(retryAfter) >= 1 &&
          Number(retryAfter) <= 600,
        `the quote_cooldown answer's Retry-After is ${JSON.stringify(retryAfter)}, not whole seconds from 1 to 600`,
        [cooling],
      );
      expectStatus(
        await quoteDomain(ctx, other, listed.domain, true),
        200,
        "another partner quotes the domain during the first partner's cool-down",
      );
    },
  },
];
