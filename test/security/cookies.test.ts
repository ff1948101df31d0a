// Every cookie of an https deployment is Secure (public document: the ds_ref cookie of GET
// /r/{code}, the ds_csrf cookie of the sign-in page), whatever Host the request names: behind a
// proxy that is an internal name such as 127.0.0.1. On a plain-http loopback deployment (npm
// start) no cookie is Secure, since a browser would drop it. And no module sets a cookie by hand.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { register } from '../oauth/support.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { signedRequest } from '../server/support/http.ts';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/** Each Set-Cookie of an answer, by cookie name, as its attribute list (lowercased names). */
function cookiesOf(res: Response): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of res.headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(';').map((p) => p.trim());
    out.set(
      pair!.split('=')[0]!,
      attributes.map((a) => a.split('=')[0]!.toLowerCase()),
    );
  }
  return out;
}

describe('cookie attributes', () => {
  let h: Harness;
  let httpsBase: string;
  let close: () => Promise<void>;
  let referralCode: string;

  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    // The same store behind an https PUBLIC_BASE_URL, reached directly as a proxy would reach it.
    const app = createApp({
      config: {
        adminToken: undefined,
        masterKey: h.masterKey,
        validateResponses: true,
        publicBaseUrl: 'https://api.example.com',
      },
      store: h.store,
      clock: h.clock,
      log: () => {},
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    httpsBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((r) => server.close(() => r()));
    const cred = await h.mint({ scopes: ['refer'], affiliate: true, rate_limits: { write: 1000 } });
    const link = await signedRequest(h, cred, {
      method: 'POST',
      path: '/api/partner/v1/links',
      body: { type: 'generic' },
    });
    expect(link.status, link.text).toBe(201);
    referralCode = new URL(link.body.url as string).pathname.split('/').pop()!;
  });
  afterAll(async () => {
    await close?.();
    await h?.close();
  });

  const signIn = async (base: string) => {
    const client = await register(base, { client_name: 'Cookies', redirect_uris: ['http://127.0.0.1:33418/callback'] });
    return fetch(
      `${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: 'http://127.0.0.1:33418/callback', code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 's' })}`,
      { headers: { accept: 'text/html' } },
    );
  };

  it('an https deployment sets ds_ref and ds_csrf Secure, HttpOnly and SameSite=Lax, whatever the Host', async () => {
    const referral = await fetch(`${httpsBase}/r/${referralCode}`, { redirect: 'manual' });
    expect(referral.status).toBe(302);
    const page = await signIn(httpsBase);
    expect(page.status).toBe(200);
    for (const [res, name] of [
      [referral, 'ds_ref'],
      [page, 'ds_csrf'],
    ] as const) {
      const attributes = cookiesOf(res).get(name);
      expect(attributes, name).toEqual(expect.arrayContaining(['secure', 'httponly', 'samesite']));
    }
  });

  it('a plain-http loopback deployment sets neither Secure', async () => {
    const referral = await fetch(`${h.baseUrl}/r/${referralCode}`, { redirect: 'manual' });
    const page = await signIn(h.baseUrl);
    expect(cookiesOf(referral).get('ds_ref')).not.toContain('secure');
    expect(cookiesOf(page).get('ds_csrf')).not.toContain('secure');
  });

  it('server/ sets cookies only through server/http/cookies.ts', () => {
    const root = new URL('../../server/', import.meta.url).pathname;
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        // dist/ is the compiled copy `npm pack` builds (test/packages does), not a source.
        if (entry === 'node_modules' || entry === 'dist') continue;
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts') && !path.endsWith(join('http', 'cookies.ts'))) {
          if (/set-cookie|\.cookie\(|clearCookie/i.test(readFileSync(path, 'utf8'))) offenders.push(path);
        }
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
