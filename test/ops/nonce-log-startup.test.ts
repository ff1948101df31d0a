// A server restarted onto its nonce log learns it before it listens (server/embedded.ts,
// store/replay-guard.ts `learnLog`), so that no request waits for it, and a nonce used before the
// restart is still a replay after it.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../server/config.ts';
import { startServer } from '../../server/embedded.ts';
import { createLogger } from '../../server/ops/logger.ts';
import type { Harness } from '../server/harness.ts';
import { signedRequest } from '../server/support/http.ts';

const ADMIN_TOKEN = `admin-${randomUUID()}`;
const dataDir = mkdtempSync(join(tmpdir(), 'nonce-log-startup-'));

/** A server on `dataDir` with its log lines captured. */
async function start() {
  const lines: string[] = [];
  const running = await startServer({
    config: configFromEnv({
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      SANDBOX_INVENTORY_SIZE: '20',
      ADMIN_TOKEN,
      DRAIN_GRACE_MS: '0',
    }),
    logger: createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } }),
  });
  // signedRequest needs only an address and a clock.
  const target = { baseUrl: running.url, clock: { now: () => Date.now() } } as unknown as Harness;
  const events = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { running, target, events };
}

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('a restart onto the nonce log', () => {
  it('learns the log before it listens, and a nonce used before the restart is still a replay', async () => {
    const first = await start();
    const minted = await fetch(`${first.running.url}/api/admin/v1/credentials`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ environment: 'sandbox', scopes: ['search'] }),
    });
    expect(minted.status).toBe(201);
    const cred = (await minted.json()) as { key_id: string; secret: string; partner_id: string };
    const request = { path: '/api/partner/v1/availability', query: 'domain=example.com', nonce: randomUUID() };
    expect((await signedRequest(first.target, cred, request)).status).toBe(200);
    // A fresh store has no log to learn: nothing said.
    expect(first.events().some((e) => e.event === 'nonce_log_learned')).toBe(false);
    await first.running.stop();

    const second = await start();
    try {
      const events = second.events();
      const learned = events.findIndex((e) => e.event === 'nonce_log_learned');
      const listening = events.findIndex((e) => e.event === 'listening');
      expect(learned, 'nonce_log_learned logged').toBeGreaterThanOrEqual(0);
      expect(learned).toBeLessThan(listening);
      expect(events[learned]?.nonces).toBe(1);
      const replay = await signedRequest(second.target, cred, request);
      expect(replay.status).toBe(401);
      expect((replay.body as { code?: string }).code).toBe('replay_detected');
    } finally {
      await second.running.stop();
    }
  });
});
