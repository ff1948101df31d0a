// Webhook dispatch throughput: N events queued straight into the outbox of a running server
// whose partner has registered a local receiver; measured from the queueing to the last arrival.
import { newEventId } from '../../server/partner/order-moves.ts';
import { rfc3339 } from '../../server/domain/rfc3339.ts';
import { mint, signedRequest } from './lib/partner.ts';
import { newMasterKey, spawnServer, tempDir } from './lib/processes.ts';
import { startReceiver } from './lib/receiver.ts';
import { openServerStore } from './lib/store.ts';

export interface WebhooksResult {
  events: number;
  seconds: number;
  deliveriesPerSecond: number;
  /** From the first arrival to the last (leaves out the dispatcher's first poll). */
  steadyDeliveriesPerSecond: number;
  duplicates: number;
  badSignatures: number;
}

export async function benchWebhooks(o: { events: number; log: (line: string) => void }): Promise<WebhooksResult> {
  const dataDir = tempDir('bench-hooks');
  const masterKey = newMasterKey();
  const server = await spawnServer({ dataDir, masterKey, validateResponses: false });
  const store = await openServerStore({ dataDir, masterKey });
  const receiver = await startReceiver();
  try {
    const credential = await mint(server.url);
    const registered = await signedRequest(server.url, credential, 'PUT', '/api/partner/webhooks', {
      url: receiver.url,
      secret: receiver.secret,
    });
    if (registered.status !== 200)
      throw new Error(`webhook registration failed: ${registered.status} ${registered.text}`);
    o.log(`webhooks: queueing ${o.events.toLocaleString('en-US')} events`);
    const started = Date.now();
    await store.transaction(async (tx) => {
      for (let i = 0; i < o.events; i++) {
        const at = Date.now();
        const id = newEventId(at);
        const order = {
          public_id: `ord_hook${String(i).padStart(8, '0')}`,
          domain: `hook-${i}.com`,
          status: 'EXTERNALLY_PAID',
          sale_price_cents: 10_000,
          currency: 'USD',
        };
        const body = JSON.stringify({
          id,
          type: 'order.recorded',
          created_at: rfc3339(at),
          partner_id: credential.partnerId,
          data: { order },
        });
        await tx.events.append(
          { id, partnerId: credential.partnerId, type: 'order.recorded', createdAt: at, body },
          true,
          at,
        );
      }
    });
    await receiver.waitFor(o.events, 120_000 + o.events * 10);
    const seconds = (Date.now() - started) / 1000;
    const arrivals = receiver.deliveries.map((d) => d.at);
    const steady = (Math.max(...arrivals) - Math.min(...arrivals)) / 1000;
    return {
      events: o.events,
      seconds,
      deliveriesPerSecond: o.events / seconds,
      steadyDeliveriesPerSecond: steady > 0 ? (o.events - 1) / steady : NaN,
      duplicates: receiver.deliveries.length - receiver.received.size,
      badSignatures: receiver.badSignatures,
    };
  } finally {
    await receiver.close();
    await store.close();
    await server.stop();
  }
}
