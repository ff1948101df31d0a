// The receiver helper against real HTTP deliveries, signed here with node:crypto directly
// (not with the module under test).
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyWebhook, webhookHandler, type WebhookEvent, type WebhookHandlerOptions } from '../../client/webhooks.ts';

const SECRET = 'whsec_0123456789abcdef';
const sig = (body: string, secret = SECRET) => createHmac('sha256', secret).update(body, 'utf8').digest('hex');
const event = (id: string): WebhookEvent => ({
  id,
  type: 'order.recorded',
  created_at: '2026-11-22T09:30:00Z',
  partner_id: 'prt_1',
  data: {
    order: {
      public_id: 'ord_1',
      domain: 'bestcoffeebeans.com',
      status: 'EXTERNALLY_PAID',
      sale_price_cents: 250000,
      currency: 'USD',
    },
  },
});

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function receiver(onEvent: (e: WebhookEvent) => unknown, extra: Partial<WebhookHandlerOptions> = {}) {
  server = createServer(webhookHandler({ secret: SECRET, onEvent, ...extra }));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return (body: string, signature: string) =>
    fetch(`http://127.0.0.1:${port}/hooks`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-service-signature': signature },
    });
}

describe('verifyWebhook', () => {
  it('accepts the exact bytes that were signed and nothing else', () => {
    const body = JSON.stringify(event('evt_1'));
    expect(verifyWebhook(body, sig(body), SECRET)?.id).toBe('evt_1');
    expect(verifyWebhook(`${body} `, sig(body), SECRET)).toBeNull();
    expect(verifyWebhook(body, sig(body, 'another-secret-000'), SECRET)).toBeNull();
    expect(verifyWebhook(body, `v1=${sig(body)}`, SECRET)).toBeNull();
    expect(verifyWebhook(body, undefined, SECRET)).toBeNull();
  });
});

describe('webhookHandler', () => {
  it('answers 200, hands a new event over once, and answers 200 to its duplicate without handing it over again', async () => {
    const received: string[] = [];
    const send = await receiver((e) => received.push(e.id));
    const body = JSON.stringify(event('evt_2'));
    const first = await send(body, sig(body));
    const again = await send(body, sig(body));
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ duplicate: true });
    await new Promise((r) => setTimeout(r, 10));
    expect(received).toEqual(['evt_2']);
  });

  it('refuses a bad signature with 401 and hands nothing over', async () => {
    const received: string[] = [];
    const send = await receiver((e) => received.push(e.id));
    const body = JSON.stringify(event('evt_3'));
    expect((await send(body, sig(`${body}x`))).status).toBe(401);
    expect(received).toEqual([]);
  });

  it('answers before a slow handler finishes', async () => {
    let finish: () => void = () => {};
    const send = await receiver(() => new Promise<void>((resolve) => (finish = resolve)));
    const body = JSON.stringify(event('evt_4'));
    const started = Date.now();
    const response = await send(body, sig(body));
    expect(response.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
    finish();
  });

  it('forgets an event whose handler failed, so a redelivery is processed', async () => {
    let calls = 0;
    const send = await receiver(() => {
      calls++;
      if (calls === 1) throw new Error('database down');
    });
    const body = JSON.stringify(event('evt_5'));
    await send(body, sig(body));
    await new Promise((r) => setTimeout(r, 10));
    const again = await send(body, sig(body));
    expect(await again.json()).toEqual({ received: true });
    expect(calls).toBe(2);
  });

  it('answers 503 when the seen-events store fails, reports it, hands nothing over, and leaves no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const received: string[] = [];
      const reported: unknown[] = [];
      const down = new Error('redis down');
      const send = await receiver((e) => received.push(e.id), {
        seen: { has: () => Promise.reject(down), add: () => {}, delete: () => {} },
        onReceiveError: (error) => reported.push(error),
      });
      const body = JSON.stringify(event('evt_6'));
      const response = await send(body, sig(body));
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: 'seen-events store unavailable' });
      await new Promise((r) => setTimeout(r, 20));
      expect(reported).toEqual([down]);
      expect(received).toEqual([]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('survives a sender that goes away mid-body, and reports it', async () => {
    const reported: unknown[] = [];
    const send = await receiver(() => {}, { onReceiveError: (error) => reported.push(error) });
    const { port } = server?.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'POST /hooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"id":',
    );
    await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect(reported).toHaveLength(1);
    // The server still answers the next delivery.
    const body = JSON.stringify(event('evt_7'));
    expect((await send(body, sig(body))).status).toBe(200);
  });
});
