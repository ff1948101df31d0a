// The one userinfo rule of the URLs the service stores (server/domain/url-userinfo.ts), written
// out or empty, and never mistaken in a URL without an authority.
import { describe, expect, it } from 'vitest';
import { carriesUserinfo } from '../../../server/domain/url-userinfo.ts';

const check = (raw: string) => carriesUserinfo(raw, new URL(raw));

describe('carriesUserinfo', () => {
  it.each([
    'https://shop.example.com@evil.example/x',
    'https://user:pw@shop.example.com/',
    'https://@evil.example/',
    'https:/@evil.example/',
    'http:\\\\@evil.example/',
    'com.example.app://user@host/cb',
  ])('finds user information in %s', (raw) => expect(check(raw)).toBe(true));

  it.each([
    'https://shop.example.com/ok?next=a@b',
    'https://shop.example.com/a@b',
    'https://shop.example.com/#x@y',
    'com.example.app:/callback@x',
    'http://127.0.0.1:8080/',
  ])('finds none in %s', (raw) => expect(check(raw)).toBe(false));
});
