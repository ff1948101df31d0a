// Loopback redirect URIs match on any port (RFC 8252 §7.3), but only on a port: 0 (any free
// port, to a listener) and a number above 65535 are no port, so such a redirect_uri is not registered (400 `invalid_redirect_uri`, shown to
// the user, never redirected to) rather than a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register } from '../oauth/support.ts';
import { startHarness, type Harness } from '../server/harness.ts';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('loopback redirect URIs and their ports', () => {
  let h: Harness;
  let clientId: string;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
    clientId = (
      await register(h.baseUrl, {
        client_name: 'Port Probe',
        redirect_uris: ['http://127.0.0.1/cb', 'http://[::1]:8000/cb', 'http://localhost/cb'],
      })
    ).client_id;
  });
  afterAll(() => h.close());

  const authorize = (redirectUri: string, accept = 'text/html') => {
    const url = new URL('/oauth/authorize', h.baseUrl);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      state: 's',
    }))
      url.searchParams.set(k, v);
    return fetch(url, { redirect: 'manual', headers: { accept } });
  };

  it.each([
    'http://127.0.0.1:99999/cb',
    'http://127.0.0.1:65536/cb',
    'http://[::1]:100000/cb',
    'http://localhost:70000/cb',
    'http://127.0.0.1:0/cb',
    'http://[::1]:00/cb',
    'http://localhost:0/cb',
  ])('refuses %s as not registered, with a page, never a redirect', async (uri) => {
    const page = await authorize(uri);
    expect(page.status, await page.clone().text()).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    const json = await authorize(uri, 'application/json');
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: 'invalid_redirect_uri' });
  });

  it.each(['http://127.0.0.1:65535/cb', 'http://127.0.0.1:1/cb', 'http://[::1]:33418/cb', 'http://localhost:8080/cb'])(
    'still accepts %s (any real port)',
    async (uri) => {
      const page = await authorize(uri);
      expect(page.status, await page.clone().text()).toBe(200);
    },
  );

  it.each(['http://127.0.0.1:99999/cb', 'http://localhost:0/cb', 'http://[::1]:0/cb', 'https://app.example.net:0/cb'])(
    'refuses to register %s (a port is 1 to 65535): invalid_redirect_uri',
    async (uri) => {
      const res = await fetch(`${h.baseUrl}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'x', redirect_uris: [uri] }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    },
  );
});
