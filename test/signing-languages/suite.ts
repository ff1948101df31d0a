// One language's signer (examples/signing/<language>/) against (a) every known-answer vector of
// spec/vectors/signing.json, (b) a running sandbox that verifies its signatures, and (c) a real
// webhook delivery. The program only prints what it computes; the expected values come from the
// vector file and the server, so a language cannot grade itself.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../server/harness.ts';
import { domainSource, signedRequest, type Credential } from '../server/support/http.ts';
import { startReceiver, type Receiver } from '../server/support/receiver.ts';
import { loadVectors } from '../protocol/vectors.ts';
import {
  LANGUAGES,
  OPT_OUT_VARIABLE,
  optedOut,
  prepare,
  runProcess,
  type LanguageName,
  type Ready,
} from './languages.ts';

const V1 = '/api/partner/v1';
const HIGH = { search: 10_000, write: 10_000, reporting: 10_000 };
/** Slack over the measured start-up for a loaded machine (two cores, many test workers). */
const SLACK = 10;

interface Line {
  kind: string;
  name: string;
  result: string;
}

/** What the vector file says each program line must be, keyed `kind / name`. */
function expectedResults(): Record<string, string> {
  const v = loadVectors();
  const out: Record<string, string> = {};
  for (const c of v.canonical_query) out[`canonical_query / ${c.name}`] = c.canonical;
  for (const c of v.invalid_query ?? []) out[`invalid_query / ${c.name}`] = 'rejected';
  for (const c of v.signatures) out[`signature / ${c.name}`] = c.signature;
  for (const c of v.webhooks) out[`webhook / ${c.name}`] = c.signature;
  return out;
}

/** Parses the `vectors` output; a repeated line is kept apart so that it shows in the diff. */
function parseLines(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const text of stdout.split('\n').filter((l) => l.trim() !== '')) {
    const line = JSON.parse(text) as Line;
    const key = `${line.kind} / ${line.name}`;
    out[key in out ? `${key} (printed twice)` : key] = line.result;
  }
  return out;
}

/** Registers the suite of one language; awaits the toolchain probe, the build and the start-up measurement. */
export async function languageSuite(name: LanguageName): Promise<void> {
  let ready: Ready;
  try {
    ready = await prepare(name);
  } catch (error) {
    const message = (error as Error).message;
    if (optedOut(name)) {
      console.warn(`*** SKIPPING the ${name} signer (${OPT_OUT_VARIABLE}): ${message} ***`);
      describe.skip(`${LANGUAGES[name].folder} (opted out: ${message})`, () => it('runs', () => undefined));
    } else {
      describe(LANGUAGES[name].folder, () => {
        it('has its toolchain and program', () => {
          throw new Error(message);
        });
      });
    }
    return;
  }

  // The sandbox starts now, not in beforeAll, so that one measured round trip sizes the timeouts
  // given to the tests below.
  const h: Harness = await startHarness({ inventorySize: 500 });
  const cred: Credential = await h.mint({ rate_limits: HIGH });
  const rx: Receiver = await startReceiver();
  const take = domainSource();
  // The first search builds the sandbox's search structures (seconds on a busy machine): pay for
  // it here, so that no program's timeout includes it.
  const warm = await signedRequest(h, cred, { method: 'GET', path: `${V1}/domains/search`, query: 'q=coffee' });
  if (warm.status !== 200) throw new Error(`search warm-up answered ${warm.status}`);
  const started = performance.now();
  await take(h, cred); // one signed round trip from Node: the server's own share of a call
  const roundTripMs = performance.now() - started;
  // One signed call made by the program itself, timed: a request costs it more than its bare
  // start-up (curl and openssl processes for the shell, a TLS-less HTTP client for the others).
  h.clock.set(Date.now());
  const firstCall = performance.now();
  await runProcess([...ready.argv, 'request', 'GET', `${V1}/pricing?domain=none.invalid`], {
    env: { SERVICE_BASE_URL: h.baseUrl, SERVICE_KEY_ID: cred.key_id, SERVICE_SECRET: cred.secret },
    timeoutMs: 60 * SLACK * (ready.startupMs + roundTripMs),
  });
  const programCallMs = performance.now() - firstCall;
  /** A ceiling for one run of the program that talks to the sandbox. */
  const callMs = SLACK * Math.max(ready.startupMs + roundTripMs, programCallMs);

  const run = (args: string[], env: Record<string, string> = {}, stdin?: Buffer | string) => {
    // The harness's clock stands still unless moved: keep it on the time the programs stamp.
    h.clock.set(Date.now());
    return runProcess([...ready.argv, ...args], { env, stdin, timeoutMs: callMs });
  };

  /** `request`: the status line and the body the program printed. */
  async function request(method: string, target: string, body?: string, env: Record<string, string> = {}) {
    const result = await run(['request', method, target, ...(body === undefined ? [] : [body])], {
      SERVICE_BASE_URL: h.baseUrl,
      SERVICE_KEY_ID: cred.key_id,
      SERVICE_SECRET: cred.secret,
      ...env,
    });
    expect(result.stderr, `${name} request ${method} ${target}`).toBe('');
    expect(result.code).toBe(0);
    const text = result.stdout.toString('utf8');
    const newline = text.indexOf('\n');
    const raw = text.slice(newline + 1);
    return { status: Number(text.slice(0, newline)), raw, body: raw === '' ? undefined : JSON.parse(raw) };
  }

  describe(`${LANGUAGES[name].folder} (${ready.version}; start-up ${Math.round(ready.startupMs)} ms)`, () => {
    afterAll(async () => {
      await rx.close();
      await h.close();
      rmSync(ready.workDir, { recursive: true, force: true });
    });

    it(
      '(a) reproduces every vector byte for byte and rejects every invalid query',
      async () => {
        const result = await runProcess([...ready.argv, 'vectors', 'spec/vectors/signing.json'], {
          timeoutMs: SLACK * ready.startupMs * Math.ceil(ready.cases / 4),
        });
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        const expected = expectedResults();
        // Unicode, reserved-character, empty-body and repeated-key cases are among them.
        expect(Object.keys(expected)).toEqual(
          expect.arrayContaining([
            'canonical_query / code points, not UTF-16 units: raw U+1F600 and U+FF61',
            "canonical_query / reserved !'()* given raw are encoded",
            'canonical_query / repeated key given in reverse value order',
            'signature / POST without a body',
            'webhook / empty body',
            'invalid_query / overlong two-byte encoding of /',
          ]),
        );
        expect(parseLines(result.stdout.toString('utf8'))).toEqual(expected);
      },
      SLACK * ready.startupMs * Math.ceil(ready.cases / 4) + 1000,
    );

    describe('(b) signed requests against the sandbox', () => {
      /** Each test runs the program at most three times, plus a few Node round trips. */
      const timeout = 3 * callMs + SLACK * 4 * roundTripMs;

      it(
        'a GET whose query has unsorted keys, a literal plus, raw reserved characters, lowercase escapes and astral Unicode: 200',
        async () => {
          // q decodes to: café+crème!*'()~😀｡ (U+1F600 before U+FF61 as sent; "+" is a plus).
          const q = "caf%c3%a9+cr%C3%A8me!*'()~%F0%9F%98%80%EF%BD%A1";
          const search = await request('GET', `${V1}/domains/search?q=${q}`);
          expect(search.status, search.raw).toBe(200);
          expect(search.body.q).toBe("café+crème!*'()~😀｡");

          const d = await take(h, cred);
          const orders = await request(
            'GET',
            `${V1}/orders?status=EXTERNALLY_PAID&limit=5&from=2024-01-01T00:00:00Z&domain=${d.domain}`,
          );
          expect(orders.status, orders.raw).toBe(200);
          expect(orders.body).toEqual({ data: [], next_cursor: null });
        },
        timeout,
      );

      it(
        'a repeated key passes the signature check (partner auth runs before validation): 400 validation_error on /query/q, not 401',
        async () => {
          const r = await request('GET', `${V1}/domains/search?q=tea&q=coffee&q=%C3%A9`);
          expect([r.status, r.body.code, r.body.details]).toEqual([
            400,
            'validation_error',
            [{ path: '/query/q', message: 'must be string' }],
          ]);
        },
        timeout,
      );

      it(
        'a POST with a body (/quotes): 200',
        async () => {
          const d = await take(h, cred);
          const quote = await request('POST', `${V1}/quotes`, JSON.stringify({ domain: d.domain }));
          expect(quote.status, quote.raw).toBe(200);
          expect(quote.body.domain).toBe(d.domain);
        },
        timeout,
      );

      it(
        'an idempotent POST /orders with non-ASCII body bytes: 201, the same Idempotency-Key replays it byte for byte, the order is there',
        async () => {
          const d = await take(h, cred);
          const body = JSON.stringify({
            domain: d.domain,
            expected_price: d.price,
            currency: d.currency,
            buyer: { email: 'zoe@example.org', country: 'US' },
            external_payment_ref: `${name}-ref-€-😀`,
          });
          const env = { IDEMPOTENCY_KEY: randomUUID() };
          const first = await request('POST', `${V1}/orders`, body, env);
          expect(first.status, first.raw).toBe(201);
          expect(first.body.external_payment_ref).toBe(`${name}-ref-€-😀`);
          const replay = await request('POST', `${V1}/orders`, body, env);
          expect([replay.status, replay.raw]).toEqual([201, first.raw]);
          const read = await signedRequest(h, cred, { path: `${V1}/orders/${String(first.body.public_id)}` });
          expect([read.status, read.body.domain]).toEqual([200, d.domain]);
        },
        timeout,
      );

      it(
        'a body changed after signing (SIGN_BODY differs from BODY): 401 invalid_signature',
        async () => {
          const d = await take(h, cred);
          const sent = JSON.stringify({ domain: d.domain });
          const r = await request('POST', `${V1}/quotes`, sent, { SIGN_BODY: sent.replace('{', '{ ') });
          expect([r.status, r.body.code]).toEqual([401, 'invalid_signature']);
        },
        timeout,
      );
    });

    it(
      '(c) registers a webhook, and verifies a real delivery: valid; a tampered body or another secret: invalid',
      async () => {
        const secret = `whsec_${name}_${randomUUID()}`;
        const registered = await request('PUT', '/api/partner/webhooks', JSON.stringify({ url: rx.url, secret }));
        expect(registered.status, registered.raw).toBe(200);
        const d = await take(h, cred);
        const order = await request(
          'POST',
          `${V1}/orders`,
          JSON.stringify({
            domain: d.domain,
            expected_price: d.price,
            currency: d.currency,
            buyer: { email: 'jane@example.org', country: 'US' },
          }),
          { IDEMPOTENCY_KEY: randomUUID() },
        );
        expect(order.status, order.raw).toBe(201);
        const [delivery] = (
          await rx.waitFor(
            (all) => all.some((x) => x.body?.data?.order?.public_id === order.body.public_id),
            SLACK * 10 * roundTripMs,
            `the order.recorded delivery of ${String(order.body.public_id)}`,
          )
        ).filter((x) => x.body?.data?.order?.public_id === order.body.public_id);
        const signature = String(delivery!.headers['x-service-signature']);
        expect(delivery!.body.type).toBe('order.recorded');

        const valid = await run(['verify-webhook', secret, signature], {}, delivery!.raw);
        expect([valid.stdout.toString().trim(), valid.code]).toEqual(['valid', 0]);
        // Nothing else, or (Go, Java) the delivery's event id to deduplicate on, and it must be this one.
        const note = String(valid.stderr);
        if (note !== '')
          expect(note).toBe(`event id ${String(delivery!.headers['x-service-event-id'])}: deduplicate on it\n`);

        const tampered = Buffer.from(delivery!.raw.toString('utf8').replace(/"domain":"/, '"domain":"x'));
        const forged = await run(['verify-webhook', secret, signature], {}, tampered);
        expect([forged.stdout.toString().trim(), forged.code]).toEqual(['invalid', 1]);

        const other = await run(['verify-webhook', `${secret}x`, signature], {}, delivery!.raw);
        expect([other.stdout.toString().trim(), other.code]).toEqual(['invalid', 1]);
      },
      5 * callMs + SLACK * 12 * roundTripMs,
    );
  });
}
