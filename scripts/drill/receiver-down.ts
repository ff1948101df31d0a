// Receiver-down drill: the partner's receiver answers 503, then drops connections, then comes
// back. Deliveries must back off on the documented schedule (scaled a thousand times down) and
// then all arrive; GET /events must return every event, in creation order, each once.
import { randomUUID } from 'node:crypto';
import { nextAttemptDelayMs } from '../../server/domain/webhook-schedule.ts';
import { mint, signedRequest } from '../bench/lib/partner.ts';
import { newMasterKey, spawnServer, tempDir } from '../bench/lib/processes.ts';
import { startReceiver } from '../bench/lib/receiver.ts';
import { listedInventory, openServerStore } from '../bench/lib/store.ts';
import { sleep, timed, waitUntil, type DrillOptions, type DrillResult } from './lib.ts';

const SCALE = 0.001;

export async function receiverDrill(o: DrillOptions): Promise<DrillResult> {
  return timed('receiver', async (checks, figures) => {
    const dataDir = tempDir('drill-receiver');
    const masterKey = newMasterKey();
    const server = await spawnServer({
      dataDir,
      masterKey,
      validateResponses: true,
      backoffScale: SCALE,
      webhookTimeoutMs: 2000,
    });
    const store = await openServerStore({ dataDir, masterKey });
    const receiver = await startReceiver();
    try {
      const credential = await mint(server.url);
      const hook = await signedRequest(server.url, credential, 'PUT', '/api/partner/webhooks', {
        url: receiver.url,
        secret: receiver.secret,
      });
      if (hook.status !== 200) throw new Error(`webhook registration: ${hook.status} ${hook.text}`);
      receiver.mode = 'failing';
      const orders = o.quick ? 10 : 30;
      const listings = await listedInventory(store, orders);
      const created: string[] = [];
      for (const l of listings) {
        const res = await signedRequest(
          server.url,
          credential,
          'POST',
          '/api/partner/v1/orders',
          {
            domain: l.domain,
            expected_price: l.price_cents,
            currency: l.currency,
            buyer: { email: 'down@example.org' },
          },
          { 'Idempotency-Key': randomUUID() },
        );
        if (res.status !== 201) throw new Error(`order: ${res.status} ${res.text}`);
        created.push((res.json() as { public_id: string }).public_id);
      }
      const downSince = Date.now();
      // Failing long enough for attempts 1 to 7 (the waits before them add up to about 6.2 s).
      await sleep(8000);
      receiver.mode = 'down';
      await sleep(3000);
      const downFor = Date.now() - downSince;
      receiver.mode = 'up';
      const arrived = await waitUntil(() => receiver.received.size >= orders, 60_000, 100);
      const upAfter = Date.now() - downSince - downFor;

      // Back-off: per event, each wait at least the scheduled one (less a poll's slack).
      const byEvent = new Map<string, number[]>();
      for (const a of receiver.attempts) byEvent.set(a.eventId, [...(byEvent.get(a.eventId) ?? []), a.at]);
      let tooEarly = 0;
      let maxAttempts = 0;
      const gaps: number[] = [];
      for (const [eventId, times] of byEvent) {
        const numbers = receiver.attempts.filter((a) => a.eventId === eventId).map((a) => a.attempt);
        maxAttempts = Math.max(maxAttempts, ...numbers);
        checks.expect(
          numbers.every((n, i) => n === i + 1),
          `event ${eventId}: attempts numbered ${numbers.join(',')}`,
        );
        for (let i = 1; i < times.length; i++) {
          const gap = (times[i] as number) - (times[i - 1] as number);
          const scheduled = nextAttemptDelayMs(i, SCALE) ?? 0;
          if (eventId === [...byEvent.keys()][0]) gaps.push(gap);
          if (gap + 50 < scheduled) tooEarly++;
        }
      }
      const events: Array<{ id: string; type: string; data: { order?: { public_id: string } } }> = [];
      let after: string | null = null;
      for (let page = 0; page < 100; page++) {
        const target = `/api/partner/v1/events?limit=7${after ? `&after_id=${after}` : ''}`;
        const res = await signedRequest(server.url, credential, 'GET', target);
        if (res.status !== 200) throw new Error(`events: ${res.status} ${res.text}`);
        const body = res.json() as { events: typeof events; next_cursor: string | null };
        events.push(...body.events);
        if (body.events.length === 0) break;
        after = body.next_cursor;
      }
      const recorded = events.filter((e) => e.type === 'order.recorded').map((e) => e.data.order?.public_id);
      Object.assign(figures, {
        orders,
        receiverDownSeconds: downFor / 1000,
        allArrived: arrived,
        secondsToCatchUpAfterUp: upAfter / 1000,
        attemptsSeen: receiver.attempts.length,
        maxAttemptNumber: maxAttempts,
        gapsOfFirstEventMs: gaps,
        attemptsEarlierThanSchedule: tooEarly,
        eventsListed: events.length,
        duplicateDeliveries: receiver.deliveries.length - receiver.received.size,
      });
      checks.expect(
        arrived,
        `${receiver.received.size} of ${orders} events arrived within 60 s of the receiver coming back`,
      );
      checks.expect(
        maxAttempts >= 6,
        `only ${maxAttempts} attempts per event while the receiver was down (want the back-off to reach attempt 6 or more)`,
      );
      checks.expect(tooEarly === 0, `${tooEarly} redeliveries came before their scheduled wait`);
      checks.expect(
        receiver.deliveries.every((d) => d.attempt > 1),
        'an event arrived on its first attempt although the receiver was down',
      );
      checks.expect(
        JSON.stringify(recorded) === JSON.stringify(created),
        `GET /events order.recorded sequence differs from creation order:\n  ${recorded.join(',')}\n  ${created.join(',')}`,
      );
      checks.expect(new Set(events.map((e) => e.id)).size === events.length, 'GET /events listed an event twice');
      const listedRecorded = events.filter((e) => e.type === 'order.recorded').map((e) => e.id);
      checks.expect(
        listedRecorded.every((id) => receiver.received.has(id)) && listedRecorded.length === receiver.received.size,
        `GET /events listed ${listedRecorded.length} order.recorded events, ${receiver.received.size} were delivered`,
      );
    } finally {
      await receiver.close();
      await store.close();
      await server.stop();
    }
  });
}
