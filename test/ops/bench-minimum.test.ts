// The bench's "stack + the required work" server (scripts/bench/minimum.ts) is the ceiling the
// bench sets beside the production_vs_floor target, so it must really do that work: check the
// signature, record the nonce in the store (a replay is refused, even by a new process on the same
// data), count the request (the rate-limit headers). A server that skipped any of it would
// make the ceiling look higher than it is. Its signature-only form must still check signatures,
// and only them: a replay passes there and nothing is written.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { signFor, type Credential } from '../../scripts/bench/lib/partner.ts';
import { spawnMinimum, tempDir, type Child } from '../../scripts/bench/lib/processes.ts';

const BODY = JSON.stringify({ domain: 'example.com', available: true });
const TARGET = '/api/partner/v1/availability?domain=example.com';
// The key the bench signs with for the servers that do not mint one (availability.ts).
const KEY: Credential = { keyId: 'pk_test_bench', secret: 'sk_test_bench', partnerId: 'none' };

const dataDir = tempDir('bench-minimum-test');
const started: Child[] = [];
afterAll(async () => {
  await Promise.all(started.map((c) => c.stop()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(upTo?: 'signature'): Promise<Child> {
  const child = await spawnMinimum(BODY, dataDir, upTo);
  started.push(child);
  return child;
}

const get = (child: Child, headers: Record<string, string>) => fetch(`${child.url}${TARGET}`, { headers });

describe('the bench’s stack + required work server', () => {
  it('answers a signed GET, counted, and refuses its replay and a wrong signature', async () => {
    const server = await start();
    const headers = signFor(KEY, 'GET', TARGET);
    const first = await get(server, headers);
    expect(first.status).toBe(200);
    expect(await first.text()).toBe(BODY);
    expect(first.headers.get('ratelimit-policy')).toMatch(/^"search";q=/);

    const replay = await get(server, headers);
    expect(replay.status).toBe(401);

    const forged = signFor({ ...KEY, secret: 'sk_test_someone_else' }, 'GET', TARGET);
    expect((await get(server, forged)).status).toBe(401);
  });

  it('keeps the nonce in its store: a new process on the same data refuses the replay', async () => {
    const before = await start();
    const headers = signFor(KEY, 'GET', TARGET);
    expect((await get(before, headers)).status).toBe(200);
    await before.stop();
    const after = await start();
    expect((await get(after, headers)).status).toBe(401);
    expect((await get(after, signFor(KEY, 'GET', TARGET))).status).toBe(200);
  });

  it('up to the signature only: refuses a wrong signature, lets a replay through, writes nothing', async () => {
    const server = await start('signature');
    const headers = signFor(KEY, 'GET', TARGET);
    expect((await get(server, headers)).status).toBe(200);
    expect((await get(server, headers)).status).toBe(200);
    expect((await get(server, signFor({ ...KEY, secret: 'sk_test_someone_else' }, 'GET', TARGET))).status).toBe(401);
    await server.stop();
    // Nothing was recorded: the whole leg, on the same data, takes the nonce as fresh.
    expect((await get(await start(), headers)).status).toBe(200);
  });
});
