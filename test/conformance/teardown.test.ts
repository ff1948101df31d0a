// Runs leave nothing behind: at the end of a run, and after Ctrl-C mid-run, the kit's webhook
// registration is deactivated (DELETE /api/partner/webhooks), so no delivery is pending and no
// later event is queued for its closed receiver. Proven against the reference server's metrics
// (webhook_outbox_depth, webhook_oldest_undelivered_age_seconds) after an operator settlement
// run, which writes order.settled for every partner's delivered orders, the kit's own included.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { startReferenceServer } from '../../conformance/run.ts';
import { ROOT } from '../../scripts/contract.ts';

let server: Awaited<ReturnType<typeof startReferenceServer>> | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** The kit's CLI as one process (so a signal reaches it), `--only webhooks` against `url`. */
function kit(url: string, token: string, interruptAfter?: RegExp) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'conformance/cli.ts', '--base-url', url, '--admin-token', token, '--only', 'webhooks'],
    { cwd: ROOT, env: { ...process.env, ADMIN_TOKEN: '', SERVICE_KEY_ID: '', SERVICE_SECRET: '' } },
  );
  let output = '';
  let interrupted = false;
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    if (interruptAfter && !interrupted && interruptAfter.test(output)) {
      interrupted = true;
      child.kill('SIGINT');
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return new Promise<{ code: number | null; output: string; interrupted: boolean }>((resolve) =>
    child.on('exit', (code) => resolve({ code, output, interrupted })),
  );
}

/** Events for every partner's delivered orders, then what waits in the outbox. */
async function pendingAfterSettlement(s: NonNullable<typeof server>) {
  const run = await fetch(`${s.url}/api/admin/v1/settlements/run`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.adminToken}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(run.status, await run.clone().text()).toBe(200);
  const text = await s.metrics();
  const gauge = (re: RegExp) => Number(re.exec(text)?.[1] ?? 'NaN');
  return {
    pending: gauge(/^webhook_outbox_depth\{status="pending"\} (\d+)/m),
    delivered: gauge(/^webhook_outbox_depth\{status="delivered"\} (\d+)/m),
    oldest: gauge(/^webhook_oldest_undelivered_age_seconds (\S+)/m),
  };
}

describe('a run leaves no webhook delivery pending', () => {
  it('after a complete run: the registration is deactivated, nothing is queued for the closed receiver', async () => {
    server = await startReferenceServer();
    const run = await kit(server.url, server.adminToken);
    expect(run.code, run.output.slice(-3000)).toBe(0);
    const after = await pendingAfterSettlement(server);
    expect(after.delivered, 'the run delivered events (the control)').toBeGreaterThan(0);
    expect(after).toMatchObject({ pending: 0, oldest: 0 });
    expect(run.output).toMatch(/webhook registration of \S+ deactivated/);
  }, 240_000);

  it('after Ctrl-C mid-run (once the receiver got deliveries): undone too, exit 130', async () => {
    server = await startReferenceServer();
    const run = await kit(server.url, server.adminToken, /partner\.webhooks\.delivery/);
    expect(run.interrupted, run.output.slice(-3000)).toBe(true);
    expect(run.code, run.output.slice(-3000)).toBe(130);
    const after = await pendingAfterSettlement(server);
    expect(after).toMatchObject({ pending: 0, oldest: 0 });
    expect(run.output).toMatch(/webhook registration of \S+ deactivated/);
  }, 240_000);
});
