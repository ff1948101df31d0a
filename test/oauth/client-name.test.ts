// A client_name the consent page could not show as registered is refused at registration
// (ClientRegistrationRequest.client_name; issue 31 item 11): with U+202E, `Evil\u202Eelgoog`
// reads "Evilgoogle" backwards on the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkClientMetadata } from '../../server/oauth/client-metadata.ts';
import { startHarness, type Harness } from '../server/harness.ts';

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
});
