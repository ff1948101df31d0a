// JSON bodies are UTF-8 (RFC 8259 §8.1): bytes that are not UTF-8 are refused with 400, never read
// with U+FFFD in their place, and a Content-Type naming another charset is 415
// unsupported_media_type, never its bytes read as UTF-8 (the ErrorCode table in
// spec/shared/schemas.yaml). The bytes go to the open client registration, which stored what it
// read; the charsets to domain search, which answered them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../server/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ inventorySize: 5, dispatch: false });
});
afterAll(() => h.close());

const register = (body: Buffer, contentType = 'application/json') =>
  fetch(`${h.baseUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: new Uint8Array(body),
  });

/** A registration whose client_name holds `name` as raw bytes. */
const withName = (name: Buffer) =>
  Buffer.concat([
    Buffer.from('{"client_name":"'),
    name,
    Buffer.from('","redirect_uris":["https://app.example.com/cb"]}'),
  ]);

describe('the bytes of a JSON body', () => {
  it.each([
    ['an invalid byte', Buffer.from([0x61, 0xff, 0xfe, 0x62])],
    ['a CESU-8 surrogate', Buffer.from([0x61, 0xed, 0xa0, 0x80])],
    ['a truncated sequence', Buffer.from([0x61, 0xe2, 0x82])],
    ['an overlong encoding', Buffer.from([0xc0, 0xaf])],
  ])('refuses %s with 400 validation_error', async (_name, bytes) => {
    const res = await register(withName(bytes));
    // Registration answers its refusals in the RFC 7591 shape (invalid_client_metadata).
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringMatching(/not valid UTF-8/),
    });
  });

  it('takes UTF-8 as it is, with or without charset=utf-8 (any case, quoted)', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/json;Charset="UTF-8"']) {
      const res = await register(withName(Buffer.from('Café ☕')), type);
      expect(res.status, type).toBe(201);
      expect(((await res.json()) as { client_name: string }).client_name).toBe('Café ☕');
    }
  });

  it.each(['utf-16', 'UTF-16LE', 'iso-8859-1', '"us-ascii"'])(
    'refuses Content-Type: application/json; charset=%s with 415 unsupported_media_type',
    async (charset) => {
      const res = await fetch(`${h.baseUrl}/api/domain/search`, {
        method: 'POST',
        headers: { 'content-type': `application/json; charset=${charset}` },
        body: JSON.stringify({ q: 'coffee.com' }),
      });
      expect(res.status).toBe(415);
      expect(await res.json()).toMatchObject({
        code: 'unsupported_media_type',
        message: expect.stringMatching(/UTF-8/),
      });
    },
  );
});

describe('the bytes of a form (the OAuth token endpoint)', () => {
  const token = (body: string | Buffer, contentType = 'application/x-www-form-urlencoded') =>
    fetch(`${h.baseUrl}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });

  it.each([
    ['a percent-encoded invalid byte', 'grant_type=authorization_code&code=a%FFb&client_id=x'],
    ['a raw invalid byte', Buffer.from('grant_type=authorization_code&code=a\xffb&client_id=x', 'latin1')],
  ])('refuses %s as invalid_request, never read with U+FFFD', async (_name, body) => {
    const res = await token(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/UTF-8/),
    });
  });

  it('refuses charset=iso-8859-1 (as invalid_request: the token endpoint answers in RFC 6749 errors)', async () => {
    const res = await token(
      'grant_type=authorization_code&code=abc&client_id=x',
      'application/x-www-form-urlencoded; charset=iso-8859-1',
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringMatching(/UTF-8/),
    });
  });
});
