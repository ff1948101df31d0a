// CSP sources are serialised from parsed URLs (scheme, host, port), and header templates are
// filled without String.replace's $-patterns (public document, x-security-headers and x-form-action).
import { describe, expect, it } from 'vitest';
import { cspSourceOf, fillTemplate } from '../../server/http/security-headers.ts';

describe('cspSourceOf', () => {
  it('is scheme://host[:port] of an origin, or the scheme of a URL without one', () => {
    expect(cspSourceOf('https://Shop.Partner.example/done?x=1#y')).toBe('https://shop.partner.example');
    expect(cspSourceOf('http://127.0.0.1:4111/cart')).toBe('http://127.0.0.1:4111');
    expect(cspSourceOf('https://[::1]:8443/cb')).toBe('https://[::1]:8443');
    expect(cspSourceOf('https://bücher.example/')).toBe('https://xn--bcher-kva.example');
    expect(cspSourceOf('com.example.app:/oauth')).toBe('com.example.app:');
  });

  it('gives no source for a host the CSP grammar cannot hold', () => {
    for (const url of [
      'https://c.com;sandbox;/done',
      'https://c.com;script-src/',
      'https://a$&b.example/',
      'https://x$`y.example/',
      "https://x$'y.example/",
      'https://a,b.example/',
      'https://a*b.example/',
      'not a url',
    ])
      expect(cspSourceOf(url), url).toBeUndefined();
  });
});

describe('fillTemplate', () => {
  it("puts values in literally: $&, $`, $' and $1 are not expanded", () => {
    const template = 'form-action {form-action}; style-src {inline-styles}';
    for (const value of ['$&', '$`', "$'", '$1', '$$', '$<name>'])
      expect(fillTemplate(template, { 'form-action': value, 'inline-styles': "'none'" }), value).toBe(
        `form-action ${value}; style-src 'none'`,
      );
  });
});
