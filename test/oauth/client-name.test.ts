// A client_name the consent page could not show as registered is refused at registration
// (ClientRegistrationRequest.client_name; issue 31 item 11): with U+202E, `Evil\u202Eelgoog`
// reads "Evilgoogle" backwards on the page. A name stored before that rule is shown with such
// characters written out as visible escapes, on the page as first shown and as shown again.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasUnshowable, showableClientName } from '../../server/oauth/client-name.ts';
import { newId } from '../../server/ids.ts';
import { checkClientMetadata } from '../../server/oauth/client-metadata.ts';
import { startHarness, type Harness } from '../server/harness.ts';
import { openAuthorize, submitForm } from './support.ts';

/** Controls and bidirectional formatting characters: what the page must never carry as they are. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTING = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

describe('client_name at registration', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ inventorySize: 20, dispatch: false });
  });
  afterAll(() => h.close());

  const register = (clientName: string) =>
    fetch(`${h.baseUrl}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: clientName, redirect_uris: ['https://app.example.net/cb'] }),
    });

  it.each([
    ['U+202E (right-to-left override)', 'Evil\u202Eelgoog'],
    ['U+2066 (left-to-right isolate)', 'App \u2066x\u2069'],
    ['U+200F (right-to-left mark)', 'App\u200F'],
    ['U+061C (Arabic letter mark)', 'App\u061C'],
    ['a newline', 'App\nGoogle'],
    ['NUL', 'App\u0000'],
    ['U+0085 (a C1 control)', 'App\u0085'],
    // Not Unicode text at all: JSON carries them as \ud800 escapes, a page shows U+FFFD.
    ['a lone high surrogate', 'App\uD800'],
    ['a lone low surrogate', '\uDC00App'],
    ['a reversed pair', 'App\uDE00\uD83D'],
  ])('refuses a name with %s: invalid_client_metadata', async (_what, name) => {
    const res = await register(name);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(res.status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toMatch(/client_name/);
  });

  it('refuses a lone surrogate in the pure check too, whatever validator ran before it', () => {
    for (const name of ['App\uD800', '\uDC00App', 'App\uDE00\uD83D']) {
      const checked = checkClientMetadata({ client_name: name, redirect_uris: ['https://app.example.net/cb'] });
      expect(checked.ok, JSON.stringify(name)).toBe(false);
      if (!checked.ok) expect(checked.error.error_description).toMatch(/client_name must be well-formed Unicode/);
    }
    expect(
      checkClientMetadata({ client_name: 'App \u{1F600}', redirect_uris: ['https://app.example.net/cb'] }).ok,
    ).toBe(true);
  });

  it.each(['My App', 'Café ☕', 'تطبيق', 'אפליקציה', 'App 😀'])('registers %s', async (name) => {
    const res = await register(name);
    expect(res.status, await res.clone().text()).toBe(201);
    expect(((await res.json()) as { client_name: string }).client_name).toBe(name);
  });

  it('shows a name stored before the rule with its bidi and control characters as visible escapes', async () => {
    const name = 'Evil\u202Eelgoog \u2066x\u2069\u200F\u061C\u0007';
    const redirect = 'https://legacy.example.net/cb';
    const clientId = newId('cli');
    // As a registration before the rule stored it (server/oauth/registration.ts).
    await h.store.oauth.insertClient({
      client_id: clientId,
      metadata: JSON.stringify({
        client_name: name,
        redirect_uris: [redirect],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: 'pricing:read',
      }),
      created_at: h.clock.now(),
    });
    const url = new URL(`${h.baseUrl}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirect,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'st',
    }))
      url.searchParams.set(k, v);

    const shown = 'Evil\\u202Eelgoog \\u2066x\\u2069\\u200F\\u061C\\u0007';
    const page = await openAuthorize(url);
    expect(page.status, page.html).toBe(200);
    expect(page.html).not.toMatch(ACTING);
    expect(page.html).toContain(`<h1>${shown} wants access to your account</h1>`);

    // Shown again after a failed sign-in.
    const again = await submitForm(h.baseUrl, page, {
      email: 'sandbox@example.com',
      password: 'not-the-password',
      decision: 'approve',
    });
    expect(again.status, again.html).toBe(200);
    expect(again.html).toContain('role="alert"');
    expect(again.html).not.toMatch(ACTING);
    expect(again.html).toContain(`<h1>${shown} wants`);
  });

  it('registration and display share one rule, the one the contract states', () => {
    const doc = JSON.parse(readFileSync(new URL('../../generated/public.openapi.json', import.meta.url), 'utf8')) as {
      components: { schemas: { ClientRegistrationRequest: { properties: { client_name: { pattern: string } } } } };
    };
    const pattern = new RegExp(doc.components.schemas.ClientRegistrationRequest.properties.client_name.pattern, 'u');
    for (let cp = 0; cp <= 0x3000; cp++) {
      const name = `App${String.fromCodePoint(cp)}x`;
      const refused = hasUnshowable(name);
      expect({ cp: cp.toString(16), refused }).toEqual({ cp: cp.toString(16), refused: !pattern.test(name) });
      // Whatever registration refuses, display writes out; whatever it accepts, display leaves alone.
      expect(showableClientName(name) === name).toBe(!refused);
      expect(hasUnshowable(showableClientName(name))).toBe(false);
    }
  });
});
