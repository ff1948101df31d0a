// The receiver mode (npm run conformance -- receiver) against the webhook handler partners are
// given (client/webhooks.ts): it must pass; a receiver that skips the signature check must fail.
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookHandler, type WebhookEvent } from '../../client/webhooks.ts';
import { runReceiverChecks } from '../../conformance/receiver.ts';
import { ROOT } from '../../scripts/contract.ts';

const run = promisify(execFile);
const SECRET = 'whsec_receiver_test_0123456789';

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` };
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

describe('conformance receiver mode', () => {
  const received: WebhookEvent[] = [];
  let good: { server: Server; url: string };
  let careless: { server: Server; url: string };

  beforeAll(async () => {
    const handle = webhookHandler({ secret: SECRET, onEvent: (event) => void received.push(event) });
    good = await serve((req, res) => void handle(req, res));
    // Reads the body and says 200 to anything: no signature check.
    careless = await serve((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
  });
  afterAll(async () => {
    await close(good.server);
    await close(careless.server);
  });

  it("passes against client/webhooks.ts's webhookHandler, which gets each valid event once", async () => {
    const results = await runReceiverChecks({ url: good.url, secret: SECRET });
    expect(results.map((r) => [r.name, r.ok, r.message ?? ''])).toEqual(results.map((r) => [r.name, true, '']));
    expect(results).toHaveLength(4);
    // The valid, the duplicate (not handed on again) and the slow delivery: two distinct events.
    await new Promise((r) => setTimeout(r, 50));
    expect(received.map((e) => e.type)).toEqual(['order.recorded', 'order.recorded']);
    expect(new Set(received.map((e) => e.id)).size).toBe(2);
  });

  it('fails a receiver that accepts a bad signature, and only that check', async () => {
    const results = await runReceiverChecks({ url: careless.url, secret: SECRET, slowBodyMs: 200 });
    const failed = results.filter((r) => !r.ok);
    expect(failed.map((r) => r.name)).toEqual(['a delivery with a bad signature is refused (non-2xx)']);
    expect(failed[0]?.message).toMatch(/accepted it with 200/);
    expect(failed[0]?.message).toContain('X-Service-Signature');
  });

  it('fails a receiver that answers too late', async () => {
    const slow = await serve((req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => res.writeHead(200).end(), 400));
    });
    try {
      const results = await runReceiverChecks({ url: slow.url, secret: SECRET, deadlineMs: 200, slowBodyMs: 50 });
      const first = results[0]!;
      expect(first.ok).toBe(false);
      expect(first.message).toMatch(/no answer within 0.2 s/);
    } finally {
      await close(slow.server);
    }
  });

  const cli = (args: string[]) =>
    run(join(ROOT, 'node_modules/.bin/tsx'), ['conformance/cli.ts', 'receiver', ...args], { cwd: ROOT }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (err: { code?: number; stdout?: string; stderr?: string }) => ({
        code: err.code ?? -1,
        stdout: `${err.stdout ?? ''}${err.stderr ?? ''}`,
      }),
    );

  it('npm run conformance -- receiver exits 0 for a good receiver, 1 for a careless one, 2 on bad arguments', async () => {
    const ok = await cli(['--url', good.url, '--secret', SECRET]);
    expect(ok.stdout).toMatch(/receiver: 4 passed, 0 failed/);
    expect(ok.code).toBe(0);
    const bad = await cli(['--url', careless.url, '--secret', SECRET]);
    expect(bad.stdout).toMatch(/FAIL a delivery with a bad signature is refused/);
    expect(bad.code).toBe(1);
    expect((await cli(['--url', good.url])).code).toBe(2);
    expect((await cli(['--url', 'ftp://example.org/hook', '--secret', SECRET])).code).toBe(2);
    expect((await cli(['--secret', SECRET, '--bogus'])).code).toBe(2);
  }, 60_000);
});
