// Webhook deliveries (seed "Events > Delivery", x-webhook-delivery): the suite runs a receiver,
// registers it, causes events (an order; with the operator API its transfer too) and checks
// every delivery: the signature is the lowercase hex HMAC-SHA256 of the raw body with the
// registered secret, the X-Service-* headers match the body, the body is what the contract's
// `webhooks` entry describes, and the same event is in GET /events. A 500 is retried with a
// higher attempt number; GET /events with after_id finds every delivered event, in order.
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { CheckFailure, expect, onTeardown, type Context, type Family } from '../context.ts';
import { jsonOf, sleep, type Exchange } from '../http.ts';
import {
  bodyOf,
  deliveriesOf,
  deliveryProblems,
  deliveryWaitMs,
  events,
  failWith,
  history,
  type Json,
  orderIdOf,
  placeOrder,
  Receiver,
  redeliveryDeadlineMs,
  refuseToReplace,
  REGISTER,
  sameEvent,
  stateOf,
  states,
  type State,
  unregister,
} from './webhooks-support.ts';

/** The classes of WebhookDelivery.last_error (x-failure-classes), read from the contract. */
function failureClasses(ctx: Context): string[] {
  const schemas = (ctx.spec.documents.partner.components as { schemas: Record<string, Json> }).schemas;
  const lastError = ((schemas.WebhookDelivery?.properties as Json | undefined)?.last_error ?? {}) as Json;
  const classes = Object.keys(lastError['x-failure-classes'] ?? {});
  if (classes.length === 0) throw new Error('the partner document has no WebhookDelivery last_error x-failure-classes');
  return classes;
}

/** GET /api/partner/webhooks until its recent_deliveries entry for the event has a last_error (or the wait ends). */
async function readDelivery(
  ctx: Context,
  state: State,
  eventId: string,
  waitMs: number,
): Promise<{ exchange: Exchange; delivery: Json | undefined }> {
  const until = Date.now() + waitMs;
  for (let pause = 50; ; pause = Math.min(pause * 2, 1000)) {
    const exchange = await ctx.http.signed({
      target: REGISTER.path,
      credentials: state.credentials,
      operation: { method: 'GET', path: REGISTER.path },
      rateClass: 'reporting',
    });
    expect(exchange.status === 200, `GET ${REGISTER.path} answered ${exchange.status}`, [exchange]);
    const recent = (jsonOf(exchange) as { recent_deliveries?: Json[] } | undefined)?.recent_deliveries ?? [];
    const delivery = recent.find((d) => d.event_id === eventId);
    if ((delivery && delivery.last_error !== null) || Date.now() >= until) return { exchange, delivery };
    await sleep(pause);
  }
}

export const webhooksFamily: Family = {
  name: 'webhooks',
  surface: 'partner',
  description:
    'Deliveries are signed (bare hex HMAC of the raw body), headers match the body, retried after a 500, and replayable through GET /events',
  needs: ['credentials', 'writes', 'webhook-receiver'],
  checks: [
    {
      id: 'partner.webhooks.register',
      rules: ['spec:partner:registerWebhook#/x-url-rules', 'seed:partner › Endpoints › Webhooks and events'],
      name: "register the suite's receiver with PUT /api/partner/webhooks",
      async run(ctx) {
        const credentials = ctx.admin ? await ctx.mint(['search', 'buy', 'webhook']) : await ctx.credentials();
        if (!ctx.admin) await refuseToReplace(ctx, credentials);
        const receiver = await Receiver.start(ctx.options.webhookListen, ctx.options.webhookPublicUrl);
        receiver.onArrival = (type) =>
          ctx.http.webhookDeliveries.set(type, (ctx.http.webhookDeliveries.get(type) ?? 0) + 1);
        try {
          const { end } = await history(ctx, credentials, null, 1000);
          const secret = `whsec_conformance_${randomBytes(12).toString('hex')}`;
          const exchange = await ctx.http.signed({
            method: 'PUT',
            target: REGISTER.path,
            credentials,
            body: JSON.stringify({ url: receiver.url, secret }),
            operation: REGISTER,
            rateClass: 'write',
          });
          // The receiver answers until the run ends; then the registration is deactivated.
          if (exchange.status === 200)
            onTeardown(ctx, 'the webhook registration', () => unregister(ctx, credentials, receiver));
          const body = jsonOf(exchange) as { url?: unknown; active?: unknown } | undefined;
          expect(exchange.status === 200, `registering ${receiver.url} should answer 200, got ${exchange.status}`, [
            exchange,
          ]);
          expect(
            body?.url === receiver.url,
            `the registration should echo the url ${receiver.url}, got ${JSON.stringify(body?.url)}`,
            [exchange],
          );
          expect(
            body?.active === true,
            `a PUT (re)activates the endpoint: active should be true, got ${JSON.stringify(body?.active)}`,
            [exchange],
          );
          expect(
            !exchange.responseBody.includes(secret),
            'the registration answer contains the secret; it is never returned',
            [exchange],
          );
          states.set(ctx, { receiver, credentials, secret, startCursor: end, orders: new Map() });
          ctx.log(`  receiver at ${receiver.url}${ctx.admin ? ' (a partner of its own)' : ''}`);
        } catch (err) {
          await receiver.close();
          throw err;
        }
      },
    },
    {
      id: 'partner.webhooks.delivery',
      rules: ['spec:partner#/x-webhook-delivery', 'spec:partner#/webhooks', 'seed:partner › Events › Delivery'],
      name: "an order's events are delivered signed, with X-Service-* headers that match a body the contract describes, and are in GET /events",
      async run(ctx) {
        const state = stateOf(ctx);
        const publicId = await placeOrder(ctx, state.credentials);
        const expected = ['order.recorded'];
        if (ctx.admin) {
          for (const [move, type] of [
            ['start-transfer', 'order.transfer_started'],
            ['confirm-delivery', 'order.transfer_completed'],
          ] as const) {
            const res = await ctx.admin.post(`/orders/${publicId}/${move}`);
            if (res.status !== 200)
              throw new CheckFailure(
                `the operator move ${move} of ${publicId} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`,
              );
            expected.push(type);
          }
        } else {
          ctx.log('  without the operator API only order.recorded is caused');
        }
        state.orders.set(publicId, expected);
        const wait = deliveryWaitMs(ctx);
        const arrived = await state.receiver.waitFor(() => {
          const types = new Set(deliveriesOf(state, publicId).map((d) => String(bodyOf(d)?.type)));
          return expected.every((t) => types.has(t)) ? true : undefined;
        }, wait);
        const mine = deliveriesOf(state, publicId);
        if (!arrived) {
          const got = mine.map((d) => String(bodyOf(d)?.type));
          throw failWith(
            `within ${Math.round(wait / 1000)} s the receiver got ${got.length ? got.join(', ') : 'nothing'} for order ${publicId}; expected ${expected.join(', ')} (${state.receiver.deliveries.length} deliveries in all)`,
            state.receiver.deliveries.slice(-3),
          );
        }
        for (const d of state.receiver.deliveries) {
          const problems = deliveryProblems(ctx, state, d);
          if (problems.length > 0) throw failWith(`delivery #${d.n}: ${problems.join('; ')}`, [d]);
        }
        const { events: stored, exchanges } = await history(ctx, state.credentials, state.startCursor);
        const byId = new Map(stored.map((e) => [String(e.id), e]));
        for (const d of mine) {
          const body = bodyOf(d)!;
          const entry = byId.get(String(body.id));
          if (!entry)
            throw failWith(
              `delivered event ${String(body.id)} (${String(body.type)}) is not in GET /events after ${state.startCursor ?? '(start)'}`,
              [d],
              exchanges.slice(-1),
            );
          const difference = sameEvent(body, entry);
          if (difference)
            throw failWith(
              `delivered event ${String(body.id)} differs from GET /events: ${difference}`,
              [d],
              exchanges.slice(-1),
            );
        }
      },
    },
    {
      id: 'partner.webhooks.redelivery',
      rules: [
        'spec:partner#/x-webhook-delivery/retry-schedule-seconds',
        'spec:partner#/x-webhook-delivery/retry-late-factor',
        'seed:partner › Events › Delivery',
      ],
      name: 'a 500 answer is retried: the event arrives again, same id and body, with a higher X-Service-Delivery-Attempt',
      async run(ctx) {
        const state = stateOf(ctx);
        state.receiver.failFirstAttempt = true;
        try {
          const publicId = await placeOrder(ctx, state.credentials);
          state.orders.set(publicId, ['order.recorded']);
          const wait = deliveryWaitMs(ctx);
          const first = await state.receiver.waitFor(
            () => deliveriesOf(state, publicId).find((d) => d.answered === 500),
            wait,
          );
          if (!first)
            throw failWith(
              `order ${publicId} was recorded but no order.recorded delivery arrived within ${Math.round(wait / 1000)} s`,
              state.receiver.deliveries.slice(-2),
            );
          const eventId = bodyOf(first)?.id;
          const deadline = redeliveryDeadlineMs(ctx);
          const again = await state.receiver.waitFor(
            () => state.receiver.deliveries.find((d) => d.n > first.n && bodyOf(d)?.id === eventId),
            deadline.ms,
          );
          if (!again) {
            throw failWith(
              `no redelivery of ${String(eventId)} within ${deadline.ms / 1000} s after the receiver answered 500: the contract's first retry is due about ${deadline.nominal} s after a failed attempt (x-webhook-delivery retry-schedule-seconds, at most retry-late-factor times that)`,
              [first],
            );
          }
          const problems = deliveryProblems(ctx, state, again);
          if (problems.length > 0) throw failWith(`the redelivery: ${problems.join('; ')}`, [again, first]);
          const a = Number(first.headers['x-service-delivery-attempt']);
          const b = Number(again.headers['x-service-delivery-attempt']);
          if (!(b > a))
            throw failWith(
              `the redelivery's X-Service-Delivery-Attempt is ${b}, not higher than the refused attempt's ${a}`,
              [first, again],
            );
          if (!first.raw.equals(again.raw))
            throw failWith('the redelivered body differs from the first attempt; an event never changes', [
              first,
              again,
            ]);
          ctx.log(`  attempt ${a} refused, attempt ${b} arrived ${again.at - first.at} ms later`);
        } finally {
          state.receiver.failFirstAttempt = false;
        }
      },
    },
    {
      id: 'partner.webhooks.failure-class',
      rules: [
        'spec:partner#/components/schemas/WebhookDelivery/properties/last_error',
        'spec:partner#/x-webhook-delivery/failed-attempts',
        'spec:partner:getWebhook#/description',
      ],
      name: "a refused attempt's reason is in GET /api/partner/webhooks recent_deliveries[].last_error as `<class>[ <status>]: <sentence>`, its class one of x-failure-classes (http_status 503 here), never the receiver's address or port",
      async run(ctx) {
        const state = stateOf(ctx);
        const classes = failureClasses(ctx);
        state.receiver.refuseWith = 503;
        try {
          const publicId = await placeOrder(ctx, state.credentials);
          state.orders.set(publicId, ['order.recorded']);
          const wait = deliveryWaitMs(ctx);
          const first = await state.receiver.waitFor(
            () => deliveriesOf(state, publicId).find((d) => d.answered === 503),
            wait,
          );
          if (!first)
            throw failWith(
              `order ${publicId} was recorded but no order.recorded delivery arrived within ${Math.round(wait / 1000)} s`,
              state.receiver.deliveries.slice(-2),
            );
          const eventId = String(bodyOf(first)?.id);
          // The deployment writes last_error once it has the answer: read until it shows.
          const read = await readDelivery(ctx, state, eventId, wait);
          const lastError = read.delivery?.last_error;
          expect(
            typeof lastError === 'string',
            `GET /api/partner/webhooks has no recent_deliveries entry for ${eventId} with a last_error within ${Math.round(wait / 1000)} s of the receiver answering 503 (${JSON.stringify(read.delivery ?? null)})`,
            [read.exchange],
          );
          const m = /^([a-z_]+)(?: (\d{3}))?: (\S.*)$/.exec(lastError);
          const receiverUrl = new URL(state.receiver.url);
          const problems = [
            ...(m ? [] : ['it is not `<class>[ <status>]: <sentence>`']),
            ...(m && !classes.includes(m[1]!)
              ? [`"${m[1]}" is not a class of x-failure-classes (${classes.join(', ')})`]
              : []),
            ...(m && m[1] !== 'http_status' ? [`the class of a 503 answer is http_status, not ${m[1]}`] : []),
            ...(m && m[2] !== '503' ? [`the status named is ${m[2] ?? 'none'}, the receiver answered 503`] : []),
            ...(lastError.includes(receiverUrl.hostname) || lastError.includes(`:${receiverUrl.port}`)
              ? [
                  `it names the receiver's address (${receiverUrl.host}): a credential must not learn what the server connected to`,
                ]
              : []),
          ];
          expect(
            problems.length === 0,
            `last_error of ${eventId} is ${JSON.stringify(lastError)}: ${problems.join('; ')}`,
            [read.exchange],
          );
          ctx.log(`  last_error after a 503: ${JSON.stringify(lastError)}`);
        } finally {
          // Later attempts are accepted: the event is delivered on the contract's schedule.
          state.receiver.refuseWith = undefined;
        }
      },
    },
    {
      id: 'partner.webhooks.catch-up',
      rules: ['spec:partner:listEvents#/description', 'seed:partner › Events › Delivery'],
      name: 'catch-up: GET /events with after_id, page by page, returns every delivered event once, in order',
      async run(ctx) {
        const state = stateOf(ctx);
        try {
          // Small pages, so that after_id and next_cursor are followed many times.
          const { events: stored, exchanges } = await history(ctx, state.credentials, state.startCursor, 2);
          const ids = stored.map((e) => String(e.id));
          const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
          if (duplicate)
            throw new CheckFailure(
              `event ${duplicate} appears twice in one traversal of GET /events`,
              exchanges.slice(-2),
            );
          for (let i = 1; i < stored.length; i++) {
            if (Date.parse(String(stored[i]!.created_at)) < Date.parse(String(stored[i - 1]!.created_at))) {
              throw new CheckFailure(
                `GET /events is not in creation order: ${ids[i - 1]} (${String(stored[i - 1]!.created_at)}) comes before ${ids[i]} (${String(stored[i]!.created_at)})`,
                exchanges.slice(-2),
              );
            }
          }
          const delivered = [...new Set(state.receiver.deliveries.map((d) => String(bodyOf(d)?.id)))];
          const lost = delivered.filter((id) => !ids.includes(id));
          if (lost.length > 0)
            throw failWith(
              `delivered events missing from GET /events after ${state.startCursor ?? '(start)'}: ${lost.join(', ')}`,
              state.receiver.deliveries.filter((d) => lost.includes(String(bodyOf(d)?.id))),
              exchanges.slice(-1),
            );
          // Each order's events in the order they happened.
          for (const [publicId, types] of state.orders) {
            const seen = stored
              .filter((e) => orderIdOf(e) === publicId)
              .map((e) => String(e.type))
              .filter((t) => types.includes(t));
            expect(
              isDeepStrictEqual(seen, types),
              `the history of order ${publicId} lists ${seen.join(', ') || 'nothing'}; expected ${types.join(', ')} in that order`,
              exchanges.slice(-1),
            );
          }
          // Resuming from any delivered event continues right after it.
          const pick = delivered[Math.floor(Math.random() * delivered.length)];
          if (pick) {
            const { exchange, events: next } = await events(ctx, state.credentials, pick, 1);
            const expectedNext = ids[ids.indexOf(pick) + 1];
            expect(
              String(next[0]?.id ?? '') === String(expectedNext ?? ''),
              `GET /events?after_id=${pick} should start with ${expectedNext ?? 'nothing (it is the last event)'}, got ${String(next[0]?.id ?? 'nothing')}`,
              [exchange],
            );
          }
          ctx.log(`  ${stored.length} events in the history, ${delivered.length} delivered, ${exchanges.length} pages`);
        } finally {
          // The receiver stays open until the run ends (events later families cause are delivered to it).
          states.delete(ctx);
        }
      },
    },
  ],
};
