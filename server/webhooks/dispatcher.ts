// Delivers the outbox: signs each event with the partner's webhook secret, POSTs it with a
// 5 s timeout to an address vetted at connection time (post-event.ts), and reschedules failures
// on the documented back-off until they are marked failed. A refused destination is a failed
// attempt like any other, with its class recorded for the partner to read (GET
// /api/partner/webhooks; never an address or a library's text: server/domain/delivery-failure.ts)
// and its detail in the server log. Deliveries are claimed with a lease, so several instances (or a
// restarted one) share the work and a crash mid-delivery only delays it.
import {
  HEADER_DELIVERY_ATTEMPT,
  HEADER_EVENT_ID,
  HEADER_EVENT_TYPE,
  HEADER_WEBHOOK_SIGNATURE,
  webhookSignature,
} from '../../client/protocol/index.ts';
import type { Clock } from '../clock.ts';
import type { Faults } from '../faults.ts';
import { lastErrorOf, type DeliveryFailure } from '../domain/delivery-failure.ts';
import { isDeliverySuccess, nextAttemptDelayMs } from '../domain/webhook-schedule.ts';
import type { DestinationOptions } from '../domain/webhook-url.ts';
import type { DueDelivery } from '../store/events.ts';
import type { Store } from '../store/index.ts';
import type { Logger } from '../ops/logger.ts';
import type { DeliveryOutcome } from '../ops/metrics.ts';
import { postEvent } from './post-event.ts';
import { systemResolve, type Resolve } from './resolve.ts';

export interface DispatcherOptions {
  store: Store;
  clock: Clock;
  /** Resolves receivers' host names at every attempt (tests inject one; default: the system resolver). */
  resolve?: Resolve;
  /** The deployment's part of the destination rule (SANDBOX_WEBHOOK_LOOPBACK; default: sandbox may reach loopback). */
  destinations?: DestinationOptions;
  /** Scales the retry schedule (tests run it in milliseconds). */
  backoffScale?: number;
  timeoutMs?: number;
  /** How often the outbox is polled when nothing wakes the dispatcher. */
  pollMs?: number;
  batchSize?: number;
  log?: (message: string) => void;
  /** Structured delivery-failure lines (takes the place of `log`). */
  logger?: Logger;
  /** Told of every attempt's outcome (the metrics). */
  onAttempt?: (outcome: DeliveryOutcome) => void;
  /** Test-only (server/faults.ts). */
  faults?: Faults;
}

export interface Dispatcher {
  start(): void;
  /** New deliveries are waiting: look now rather than at the next poll. */
  wake(): void;
  /** Stops polling and waits for deliveries in flight. */
  stop(): Promise<void>;
  /** One pass over what is due (tests drive the dispatcher with this). */
  runOnce(): Promise<number>;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { store, clock } = options;
  const resolve = options.resolve ?? systemResolve;
  const timeoutMs = options.timeoutMs ?? 5000;
  const pollMs = options.pollMs ?? 1000;
  const logger = options.logger;
  const log =
    options.log ?? (logger ? (message: string) => logger.error({ event: 'dispatcher_failed' }, message) : () => {});
  const onAttempt = options.onAttempt ?? (() => {});
  const inflight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopped = true;
  let again = false;

  async function deliver(d: DueDelivery): Promise<void> {
    const attempt = d.attempts + 1;
    const endpoint = await store.events.endpoint(d.partnerId);
    if (!endpoint?.active) {
      await store.events.markRetry(d.outboxId, attempt, undefined, 'no active webhook endpoint');
      onAttempt('failed');
      return;
    }
    const partner = await store.credentials.findPartner(d.partnerId);
    if (!partner) {
      await store.events.markRetry(d.outboxId, attempt, undefined, 'the partner no longer exists');
      onAttempt('failed');
      return;
    }
    const outcome = await postEvent({
      url: endpoint.url,
      body: d.body,
      environment: partner.environment,
      resolve,
      timeoutMs,
      ...(options.destinations ? { destinations: options.destinations } : {}),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'domain-sales-webhooks/1',
        // The fault signs like a request (v1= prefix), a mix-up receivers must refuse.
        [HEADER_WEBHOOK_SIGNATURE]:
          (options.faults?.has('bad-webhook-signature') ? 'v1=' : '') + webhookSignature(endpoint.secret, d.body),
        [HEADER_EVENT_ID]: d.eventId,
        [HEADER_EVENT_TYPE]: d.type,
        [HEADER_DELIVERY_ATTEMPT]: String(attempt),
      },
    });
    if ('status' in outcome && isDeliverySuccess(outcome.status)) {
      await store.events.markDelivered(d.outboxId, attempt, clock.now());
      onAttempt('delivered');
      return;
    }
    const failure: DeliveryFailure =
      'failure' in outcome
        ? outcome.failure
        : { class: 'http_status', status: outcome.status, detail: `the receiver answered HTTP ${outcome.status}` };
    const error = options.faults?.has('delivery-error-detail') ? failure.detail : lastErrorOf(failure, timeoutMs);
    const delay = nextAttemptDelayMs(attempt, options.backoffScale ?? 1);
    await store.events.markRetry(d.outboxId, attempt, delay === undefined ? undefined : clock.now() + delay, error);
    onAttempt(delay === undefined ? 'failed' : 'retry');
    if (logger)
      logger.warn(
        {
          event: 'delivery_failed',
          event_id: d.eventId,
          partner_id: d.partnerId,
          attempt,
          reason: error,
          detail: failure.detail,
          gave_up: delay === undefined,
        },
        'webhook delivery failed',
      );
    else
      log(
        `webhook ${d.eventId} attempt ${attempt} failed (${error}; ${failure.detail})${delay === undefined ? '; giving up' : ''}`,
      );
  }

  async function runOnce(): Promise<number> {
    const due = await store.events.claimDue(clock.now(), options.batchSize ?? 20, timeoutMs + 10_000);
    const work = due.map((d) =>
      deliver(d).catch((err: unknown) => {
        onAttempt('error');
        log(`webhook ${d.eventId} could not be processed: ${String(err)}`);
      }),
    );
    for (const p of work) {
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
    await Promise.all(work);
    return due.length;
  }

  async function loop(): Promise<void> {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        // A full batch means more may be due right away.
        while (!stopped && (await runOnce()) === (options.batchSize ?? 20));
      } while (again && !stopped);
    } catch (err) {
      log(`webhook dispatcher pass failed: ${String(err)}`);
    } finally {
      running = false;
    }
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void loop().finally(schedule), pollMs);
    timer.unref();
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      void loop();
      schedule();
    },
    wake() {
      if (!stopped) void loop();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      while (running || inflight.size > 0) {
        await Promise.allSettled([...inflight]);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    runOnce,
  };
}
