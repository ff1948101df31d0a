// `domain-sales verify-webhook` as a child process. Signatures are made here with node:crypto
// directly (the scheme of x-webhook-delivery), not with the module under test.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.ts';

const SECRET = 'whsec_cli_0123456789abcdef';
const BODY = JSON.stringify({
  id: 'evt_01JD9R2K8F3M6N9P4Q7S1T5V8X',
  type: 'order.recorded',
  created_at: '2026-11-22T09:31:12Z',
  partner_id: 'ptn_8XK2R7M4',
  data: {
    order: {
      public_id: 'ord_7QK2M9XB4T',
      domain: 'café-bestcoffeebeans.com',
      status: 'EXTERNALLY_PAID',
      sale_price_cents: 250000,
      currency: 'USD',
    },
  },
});
const hmac = (body: string, secret = SECRET) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex');
const verify = (stdin: string, ...flags: string[]) => runCli(['verify-webhook', ...flags], {}, stdin);

describe('domain-sales verify-webhook', () => {
  it('says valid, exit 0, for the body exactly as signed', async () => {
    const run = await verify(BODY, '--secret', SECRET, '--signature', hmac(BODY));
    expect(run.stdout).toMatch(/^valid: /);
    expect(run.code).toBe(0);
  });

  it('takes the secret from WEBHOOK_SECRET and the headers from a raw HTTP request', async () => {
    const message = `POST /webhooks HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nX-Service-Signature: ${hmac(BODY)}\r\nX-Service-Event-Id: evt_01JD9R2K8F3M6N9P4Q7S1T5V8X\r\n\r\n${BODY}`;
    const run = await runCli(['verify-webhook'], { WEBHOOK_SECRET: SECRET }, message);
    expect(run.stdout).toMatch(/^valid: /);
    expect(run.code).toBe(0);
  });

  it('says invalid, exit 1, for a tampered body', async () => {
    const tampered = BODY.replace('250000', '150000');
    const run = await verify(tampered, '--secret', SECRET, '--signature', hmac(BODY));
    expect(run.stdout).toMatch(/^invalid: the signature does not match/);
    expect(run.code).toBe(1);
  });

  it('says invalid, exit 1, for another secret', async () => {
    const run = await verify(BODY, '--secret', 'whsec_not_the_registered_one', '--signature', hmac(BODY));
    expect(run.stdout).toMatch(/^invalid: .*secret is not the one registered/);
    expect(run.code).toBe(1);
  });

  it('names the usual causes: a trailing newline, a re-serialised body, a v1= prefix, uppercase hex, another event id', async () => {
    const newline = await verify(`${BODY}\n`, '--secret', SECRET, '--signature', hmac(BODY));
    expect([newline.code, newline.stdout]).toEqual([
      1,
      expect.stringMatching(/^invalid: the body changed: .*trailing newline/),
    ]);

    const pretty = await verify(
      JSON.stringify(JSON.parse(BODY), null, 2),
      '--secret',
      SECRET,
      '--signature',
      hmac(BODY),
    );
    expect([pretty.code, pretty.stdout]).toEqual([
      1,
      expect.stringMatching(/^invalid: the body changed: .*compact JSON/),
    ]);

    const prefixed = await verify(BODY, '--secret', SECRET, '--signature', `v1=${hmac(BODY)}`);
    expect([prefixed.code, prefixed.stdout]).toEqual([
      1,
      expect.stringMatching(/^invalid: the signature starts with "v1="[^]*without the prefix it matches/),
    ]);

    const upper = await verify(BODY, '--secret', SECRET, '--signature', hmac(BODY).toUpperCase());
    expect([upper.code, upper.stdout]).toEqual([1, expect.stringMatching(/^invalid: .*uppercase/)]);

    const other = await verify(BODY, '--secret', SECRET, '--signature', hmac(BODY), '--event-id', 'evt_other');
    expect(other.stdout).toMatch(/belongs to another delivery/);
  });

  it('explains --timestamp instead of pretending the scheme has one', async () => {
    const run = await verify(BODY, '--secret', SECRET, '--signature', hmac(BODY), '--timestamp', '1000000000');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^valid: [^]*--timestamp is not part of the webhook scheme/);
  });

  it('answers usage mistakes with one line on stderr and exit 2', async () => {
    const noSecret = await verify(BODY, '--signature', hmac(BODY));
    const noSignature = await verify(BODY, '--secret', SECRET);
    const unknown = await verify(BODY, '--secret', SECRET, '--sig', 'x');
    for (const run of [noSecret, noSignature, unknown]) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^domain-sales: /);
    }
    expect(noSecret.stderr).toMatch(/--secret S or WEBHOOK_SECRET/);
    expect(noSignature.stderr).toMatch(/no signature/);
  });

  it('prints its help with exit 0', async () => {
    const run = await runCli(['verify-webhook', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: domain-sales verify-webhook/);
  });
});
