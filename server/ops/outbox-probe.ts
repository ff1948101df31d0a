// The webhook outbox as the metrics see it, read from the store at scrape time (two small
// aggregate queries; the outbox has an index on status and next attempt, 009_outbox_by_partner).
import type { Clock } from '../clock.ts';
import type { Store } from '../store/index.ts';
import type { OutboxProbe } from './metrics.ts';

export function outboxProbe(store: Store, clock: Clock): OutboxProbe {
  return {
    depth: () => store.events.outboxStats(),
    async oldestPendingAgeSeconds() {
      const row = await store.db
        .selectFrom('outbox')
        .innerJoin('events', 'events.id', 'outbox.event_id')
        .select((eb) => eb.fn.min('events.created_at').as('oldest'))
        .where('outbox.status', '=', 'pending')
        .executeTakeFirst();
      const oldest = row?.oldest === null || row?.oldest === undefined ? undefined : Number(row.oldest);
      return oldest === undefined ? 0 : Math.max(0, (clock.now() - oldest) / 1000);
    },
  };
}
