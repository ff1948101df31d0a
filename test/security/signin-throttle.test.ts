// Sign-in throttling (x-signin-throttle of the sign-in form): failed password attempts are counted
// per account and per client address before the password is checked. Past 5 failures for an
// account, or 20 from an address, each further attempt waits 1, 2, 4, 8, then 15 minutes after the
// last failure: 429 with Retry-After and the page again, whatever the password. A correct
// password clears the account's count. An email without an account is treated exactly alike.
// The attempts come from many loopback addresses (as a botnet's would), and the clock is the
// harness's, so the waits are exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSandboxUser } from '../../server/oauth/index.ts';
import { openAuthorize, register, SANDBOX_USER, type SignInPage } from '../oauth/support.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { databases } from '../server/support/http.ts';
import { freshLoopbackAddress, requestFrom } from '../support/from-address.ts';

const REDIRECT = 'http://127.0.0.1:33418/callback';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const MINUTE = 60_000;

interface Answer {
  status: number;
  retryAfter: string | undefined;
  location: string | undefined;
  html: string;
}

describe.each(databases())('sign-in throttling ($name)', ({ databaseUrl }) => {
  let h: Harness;
  let clientId: string;
  beforeAll(async () => {
    h = await startHarness({ databaseUrl, inventorySize: 20, dispatch: false });
    await ensureSandboxUser(h.store, SANDBOX_USER);
    clientId = (await register(h.baseUrl, { client_name: 'Throttle', redirect_uris: [REDIRECT] })).client_id;
  });
  afterAll(() => h?.close());

  const page = async (): Promise<SignInPage> => {
    const url = `${h.baseUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 's' })}`;
    const opened = await openAuthorize(url);
    expect(opened.status).toBe(200);
    return opened;
  };

  /** Submits the sign-in form of `p` from `address`. */
  const signIn = async (
    p: SignInPage,
    email: string,
    password: string,
    address = freshLoopbackAddress(),
  ): Promise<Answer> => {
    const body = new URLSearchParams({
      auth_request: p.authRequest ?? '',
      csrf_token: p.csrfToken ?? '',
      email,
      password,
      decision: 'approve',
    }).toString();
    const reply = await requestFrom(h.baseUrl, {
      method: 'POST',
      path: '/oauth/authorize',
      address,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html',
        cookie: p.cookie ?? '',
        'content-length': Buffer.byteLength(body),
      },
      body,
    });
    return {
      status: reply.status,
      retryAfter: reply.headers['retry-after'],
      location: reply.headers.location,
      html: reply.text,
    };
  };

  const statuses = (answers: Answer[]) => answers.map((a) => a.status);

  it('replays the finding: 150 wrong passwords from 5 addresses, then the right one, does not sign in', async () => {
    const p = await page();
    const answers: Answer[] = [];
    for (let i = 0; i < 150; i++)
      answers.push(await signIn(p, SANDBOX_USER.email, `wrong-${i}`, `127.0.5.${1 + (i % 5)}`));
    expect(statuses(answers.slice(0, 5))).toEqual([200, 200, 200, 200, 200]);
    expect(answers.slice(5).every((a) => a.status === 429)).toBe(true);
    const right = await signIn(p, SANDBOX_USER.email, SANDBOX_USER.password);
    expect(right.status).toBe(429);
    expect(right.location).toBeUndefined();
    expect(Number(right.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(right.html).toMatch(/Too many failed sign-in attempts\. Wait 1 minute/);
    // Once the wait is over, the right password signs in, and the count starts again from zero.
    h.clock.advance(MINUTE);
    const after = await signIn(p, SANDBOX_USER.email, SANDBOX_USER.password);
    expect(after.status).toBe(303);
    expect(after.location).toMatch(/[?&]code=/);
    for (let i = 0; i < 5; i++) expect((await signIn(p, SANDBOX_USER.email, `again-${i}`)).status).toBe(200);
  });

  it('makes each wait longer than the last: 1, 2, 4, 8, then 15 minutes', async () => {
    const email = `grow-${Date.now()}@example.org`;
    // A sign-in form lives 10 minutes: each attempt gets a fresh one.
    const attempt = async () => signIn(await page(), email, 'wrong');
    for (let i = 0; i < 5; i++) expect((await attempt()).status).toBe(200);
    for (const minutes of [1, 2, 4, 8, 15, 15]) {
      const refused = await attempt();
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfter)).toBe(minutes * 60);
      h.clock.advance(minutes * MINUTE - 1000);
      expect((await attempt()).status, `${minutes} min less a second`).toBe(429);
      h.clock.advance(1000);
      expect((await attempt()).status, `after ${minutes} min`).toBe(200);
    }
  });

  it('answers an email without an account exactly as one with an account', async () => {
    const run = async (email: string) => {
      const p = await page();
      const answers: Answer[] = [];
      for (let i = 0; i < 8; i++) answers.push(await signIn(p, email, `wrong-${i}`));
      return answers.map((a) => ({
        status: a.status,
        retryAfter: a.retryAfter,
        text: a.html.replace(/value="[^"]*"/g, '').replace(email, 'EMAIL'),
      }));
    };
    const user = `known-${Date.now()}@example.org`;
    await ensureSandboxUser(h.store, { email: user, password: 'the-right-password' });
    const known = await run(user);
    const unknown = await run(`nobody-${Date.now()}@example.org`);
    expect(unknown).toEqual(known);
    expect(known.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });

  it('throttles an address that tries many accounts, and no other address', async () => {
    const p = await page();
    const address = freshLoopbackAddress();
    const answers: Answer[] = [];
    for (let i = 0; i < 22; i++)
      answers.push(await signIn(p, `spray-${i}-${Date.now()}@example.org`, 'password1', address));
    expect(statuses(answers.slice(0, 20)).every((s) => s === 200)).toBe(true);
    expect(statuses(answers.slice(20))).toEqual([429, 429]);
    // Even the right password of a real account waits, from that address; from another it signs in.
    expect((await signIn(p, SANDBOX_USER.email, SANDBOX_USER.password, address)).status).toBe(429);
    expect((await signIn(p, SANDBOX_USER.email, SANDBOX_USER.password)).status).toBe(303);
  });

  it('checks at most the free attempts of an account when they arrive all at once', async () => {
    const p = await page();
    const email = `burst-${Date.now()}@example.org`;
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(p, email, `wrong-${i}`)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(25);
  });

  it('answers a client that prefers JSON with 429 rate_limited and Retry-After', async () => {
    const p = await page();
    const email = `json-${Date.now()}@example.org`;
    for (let i = 0; i < 5; i++) await signIn(p, email, 'wrong');
    const res = await fetch(`${h.baseUrl}/oauth/authorize`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        cookie: p.cookie ?? '',
      },
      body: new URLSearchParams({
        auth_request: p.authRequest ?? '',
        csrf_token: p.csrfToken ?? '',
        email,
        password: 'wrong',
        decision: 'approve',
      }),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
    expect(await res.json()).toMatchObject({ code: 'rate_limited' });
  });
});
