// POST /orders refusals are answered by the one error writer (server/http/errors.ts), like every
// other error: so the wrong-error-codes fault of server/faults.ts reaches them too (the conformance
// suite's proof of power relies on it), and a replayed refusal repeats the first answer exactly.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { domainSource, INVENTORY_SIZE, orderBody, signedRequest, type Credential } from './support/http.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };

describe.each([
  { name: 'faithful', faults: undefined, codeOf: (code: string) => code },
  {
    name: 'with the wrong-error-codes fault',
    faults: new Set(['wrong-error-codes'] as const),
    codeOf: (code: string) => ({ price_mismatch: 'validation_error', domain_reserved: 'conflict' })[code] ?? code,
  },
])('POST /orders refusals ($name)', ({ faults, codeOf }) => {
  let h: Harness;
  let cred: Credential;
  let rival: Credential;
  const take = domainSource();

  beforeAll(async () => {
    h = await startHarness({ inventorySize: INVENTORY_SIZE, ...(faults ? { faults } : {}) });
    cred = await h.mint({ rate_limits: HIGH });
    rival = await h.mint({ rate_limits: HIGH });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('price_mismatch keeps its 422 and carries the code the server means to send, also on replay', async () => {
    const d = await take(h, cred);
    const idempotencyKey = randomUUID();
    const request = {
      method: 'POST',
      path: `${V1}/orders`,
      body: orderBody(d, { expected_price: d.price + 1 }),
      idempotencyKey,
    };
    const first = await signedRequest(h, cred, request);
    expect(first.status, first.text).toBe(422);
    expect(first.body.code).toBe(codeOf('price_mismatch'));
    expect(first.body.request_id).toBe(first.headers.get('x-request-id'));
    const again = await signedRequest(h, cred, request);
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it("domain_reserved (another partner's quote holds the domain) carries the code the server means to send", async () => {
    const d = await take(h, cred);
    const q = await signedRequest(h, rival, { method: 'POST', path: `${V1}/quotes`, body: { domain: d.domain } });
    expect(q.status, q.text).toBe(200);
    const r = await signedRequest(h, cred, {
      method: 'POST',
      path: `${V1}/orders`,
      body: orderBody(d),
      idempotencyKey: randomUUID(),
    });
    expect(r.status, r.text).toBe(409);
    expect(r.body.code).toBe(codeOf('domain_reserved'));
  });
});
