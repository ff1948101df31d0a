// The event history and the webhook outbox. An event and its outbox row are written by the same
// executor as the change that caused them, so a crash loses neither or both.
import { sql, type Kysely } from 'kysely';
import type { SecretBox } from '../security/secret-box.ts';
import type { Database } from './schema.ts';

export interface StoredEvent {
  seq: number;
  id: string;
  partnerId: string;
  type: string;
  createdAt: number;
  body: string;
}

export interface WebhookEndpoint {
  partnerId: string;
  url: string;
  secret: string;
  active: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface DueDelivery {
  outboxId: number;
  eventId: string;
  partnerId: string;
  attempts: number;
  body: string;
  type: string;
}

/** Where one delivery stands, as GET /api/partner/webhooks shows it. */
export interface DeliveryRecord {
  eventId: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** Why the latest attempt failed; null once delivered. */
  lastError: string | null;
  /** Pending only. */
  nextAttemptAt: number | null;
  deliveredAt: number | null;
}

export function eventRepository(db: Kysely<Database>, box: SecretBox, onPostgres = false) {
  return {
    /** Appends an event; when `deliver` is set and the partner has an active endpoint, queues a delivery. */
    async append(
      event: { id: string; partnerId: string; type: string; createdAt: number; body: string },
      deliver: boolean,
      now: number,
    ): Promise<void> {
      await db
        .insertInto('events')
        .values({
          id: event.id,
          partner_id: event.partnerId,
          type: event.type,
          created_at: event.createdAt,
          body: event.body,
        })
        .execute();
      if (!deliver) return;
      const endpoint = await db
        .selectFrom('webhook_endpoints')
        .select('active')
        .where('partner_id', '=', event.partnerId)
        .executeTakeFirst();
      if (endpoint?.active !== 1) return;
      await db
        .insertInto('outbox')
        .values({
          event_id: event.id,
          partner_id: event.partnerId,
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          lease_until: null,
          last_error: null,
          delivered_at: null,
        })
        .execute();
    },

    async seqOf(eventId: string, partnerId: string): Promise<number | undefined> {
      const row = await db
        .selectFrom('events')
        .select('seq')
        .where('id', '=', eventId)
        .where('partner_id', '=', partnerId)
        .executeTakeFirst();
      return row?.seq;
    },

    /** Events of a partner after a sequence number, in creation order. */
    async list(partnerId: string, afterSeq: number, limit: number): Promise<StoredEvent[]> {
      const rows = await db
        .selectFrom('events')
        .selectAll()
        .where('partner_id', '=', partnerId)
        .where('seq', '>', afterSeq)
        .orderBy('seq')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        seq: r.seq,
        id: r.id,
        partnerId: r.partner_id,
        type: r.type,
        createdAt: r.created_at,
        body: r.body,
      }));
    },

    async upsertEndpoint(partnerId: string, url: string, secret: string, now: number): Promise<WebhookEndpoint> {
      const sealed = box.seal(secret);
      await db
        .insertInto('webhook_endpoints')
        .values({ partner_id: partnerId, url, secret_enc: sealed, active: 1, created_at: now, updated_at: now })
        .onConflict((oc) =>
          oc.column('partner_id').doUpdateSet({ url, secret_enc: sealed, active: 1, updated_at: now }),
        )
        .execute();
      const endpoint = await this.endpoint(partnerId);
      if (!endpoint) throw new Error('webhook endpoint vanished after upsert');
      return endpoint;
    },

    /**
     * Deactivates the partner's endpoint and gives up its pending deliveries (DELETE
     * /api/partner/webhooks). In this order, so an event appended in between is not queued.
     */
    async deactivateEndpoint(partnerId: string, now: number, reason: string): Promise<WebhookEndpoint | undefined> {
      await db
        .updateTable('webhook_endpoints')
        .set({ active: 0, updated_at: now })
        .where('partner_id', '=', partnerId)
        .execute();
      await db
        .updateTable('outbox')
        .set({ status: 'failed', lease_until: null, last_error: reason })
        .where('partner_id', '=', partnerId)
        .where('status', '=', 'pending')
        .execute();
      return this.endpoint(partnerId);
    },

    async endpoint(partnerId: string): Promise<WebhookEndpoint | undefined> {
      const row = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('partner_id', '=', partnerId)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        partnerId: row.partner_id,
        url: row.url,
        secret: box.open(row.secret_enc),
        active: row.active === 1,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      };
    },

    /**
     * Claims up to `limit` due deliveries for `leaseMs`, the longest due first (outbox_due gives
     * that order): another instance (or this one after a crash) may take them once the lease has
     * run out, so nothing is lost or stuck.
     */
    async claimDue(now: number, limit: number, leaseMs: number): Promise<DueDelivery[]> {
      if (onPostgres) {
        // One statement: the due rows are chosen through outbox_due and locked (rows another
        // instance is claiming are passed over), then leased by id. Re-checking the status and
        // lease by id in an UPDATE of its own let the planner reach the row through outbox_due
        // by status alone, which reads every pending delivery to lease one (the plan check).
        const { rows } = await sql<DueDelivery>`
          with claimed as (
            update outbox set lease_until = ${now + leaseMs}
            where id in (
              select id from outbox where status = 'pending' and next_attempt_at <= ${now} and (lease_until is null or lease_until < ${now})
              order by next_attempt_at, id limit ${limit} for update skip locked)
            returning id, event_id, partner_id, attempts, next_attempt_at)
          select claimed.id as "outboxId", claimed.event_id as "eventId", claimed.partner_id as "partnerId", claimed.attempts as "attempts", events.body as "body", events.type as "type"
          from claimed join events on events.id = claimed.event_id order by claimed.next_attempt_at, claimed.id`.execute(
          db,
        );
        return rows.map((r) => ({ ...r, outboxId: Number(r.outboxId) }));
      }
      const candidates = await db
        .selectFrom('outbox')
        .innerJoin('events', 'events.id', 'outbox.event_id')
        .select([
          'outbox.id as outboxId',
          'outbox.event_id as eventId',
          'outbox.partner_id as partnerId',
          'outbox.attempts as attempts',
          'events.body as body',
          'events.type as type',
        ])
        .where('outbox.status', '=', 'pending')
        .where('outbox.next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('outbox.lease_until', 'is', null), eb('outbox.lease_until', '<', now)]))
        .orderBy('outbox.next_attempt_at')
        .orderBy('outbox.id')
        .limit(limit)
        .execute();
      // SQLite: one writer at a time, so a candidate is leased unless another process leased it
      // between the read and this update. The read may see an order whose commit is still being
      // flushed (its 201 waits for that flush: order-placement.ts), but each lease commits with
      // synchronous = FULL, whose flush of the log covers every commit before it: a delivery is
      // never sent for an event that is not on disk.
      const claimed: DueDelivery[] = [];
      for (const c of candidates) {
        const result = await db
          .updateTable('outbox')
          .set({ lease_until: now + leaseMs })
          .where('id', '=', c.outboxId)
          .where('status', '=', 'pending')
          .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 1) claimed.push({ ...c, outboxId: Number(c.outboxId) });
      }
      return claimed;
    },

    async markDelivered(outboxId: number, attempts: number, now: number): Promise<void> {
      await db
        .updateTable('outbox')
        .set({ status: 'delivered', attempts, delivered_at: now, lease_until: null, last_error: null })
        .where('id', '=', outboxId)
        .execute();
    },

    async markRetry(
      outboxId: number,
      attempts: number,
      nextAttemptAt: number | undefined,
      error: string,
    ): Promise<void> {
      await db
        .updateTable('outbox')
        .set(
          nextAttemptAt === undefined
            ? { status: 'failed', attempts, lease_until: null, last_error: error }
            : { attempts, next_attempt_at: nextAttemptAt, lease_until: null, last_error: error },
        )
        .where('id', '=', outboxId)
        .execute();
    },

    /** A partner's most recent deliveries, newest first. */
    async recentDeliveries(partnerId: string, limit: number): Promise<DeliveryRecord[]> {
      const rows = await db
        .selectFrom('outbox')
        .innerJoin('events', 'events.id', 'outbox.event_id')
        .select([
          'outbox.event_id as eventId',
          'events.type as type',
          'outbox.status as status',
          'outbox.attempts as attempts',
          'outbox.last_error as lastError',
          'outbox.next_attempt_at as nextAttemptAt',
          'outbox.delivered_at as deliveredAt',
        ])
        .where('outbox.partner_id', '=', partnerId)
        .orderBy('outbox.id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((r) => ({
        eventId: r.eventId,
        type: r.type,
        status: r.status,
        attempts: Number(r.attempts),
        lastError: r.lastError,
        nextAttemptAt: r.status === 'pending' ? Number(r.nextAttemptAt) : null,
        deliveredAt: r.deliveredAt === null ? null : Number(r.deliveredAt),
      }));
    },

    async nextDueAt(): Promise<number | undefined> {
      const row = await db
        .selectFrom('outbox')
        .select((eb) => eb.fn.min('next_attempt_at').as('at'))
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
    },

    async outboxStats(): Promise<Record<string, number>> {
      const rows = await db
        .selectFrom('outbox')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .execute();
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    },
  };
}

export type EventRepository = ReturnType<typeof eventRepository>;
