import { describe, expect, it } from 'vitest';
import { checkResolvedAddresses, checkWebhookUrl } from '../../../server/domain/webhook-url.ts';
import { at, loadYaml, partnerSchema } from './spec.ts';

const urlSchema = at(partnerSchema('WebhookRegistrationRequest'), 'properties', 'url') as {
  maxLength: number;
  pattern: string;
};
const registration = loadYaml('spec/partner/paths/webhooks.yaml');

const ok = (url: string, env: 'sandbox' | 'live'): boolean => checkWebhookUrl(url, env).ok;

describe('checkWebhookUrl: syntax and scheme', () => {
  it('accepts a public https URL in both environments', () => {
    const example = at(partnerSchema('WebhookRegistrationRequest'), 'properties', 'url', 'examples') as string[];
    for (const url of example) {
      expect(checkWebhookUrl(url, 'live')).toEqual({
        ok: true,
        href: url,
        hostname: 'partner.example.net',
        literalIp: false,
      });
      expect(ok(url, 'sandbox')).toBe(true);
    }
  });

  it('needs https for live and takes http in sandbox (x-url-rules)', () => {
    expect(at(registration, 'put', 'x-url-rules', 'live')).toMatch(/^https only/);
    expect(at(registration, 'put', 'x-url-rules', 'sandbox')).toMatch(/^http or https/);
    expect(ok('http://partner.example.net/hooks', 'live')).toBe(false);
    expect(ok('http://partner.example.net/hooks', 'sandbox')).toBe(true);
    for (const env of ['live', 'sandbox'] as const) {
      for (const url of [
        'ftp://partner.example.net/',
        'ws://partner.example.net/',
        'javascript:alert(1)',
        'partner.example.net/hooks',
        '//partner.example.net/',
      ]) {
        expect(ok(url, env), `${env} ${url}`).toBe(false);
      }
    }
  });

  it('answers validation_error with a detail at /body/url', () => {
    expect(checkWebhookUrl('http://partner.example.net/', 'live')).toMatchObject({
      ok: false,
      code: 'validation_error',
      details: [{ path: '/body/url' }],
    });
  });

  it('refuses what is not a URL, and spaces or controls the parser would strip', () => {
    for (const url of [
      '',
      'https://',
      'https://exa mple.com/',
      ' https://example.com/',
      'https://example.com/\n',
      'https://ex\tample.com/',
      'https://[::1/',
      'https://exa%zzmple.com/',
    ]) {
      expect(ok(url, 'sandbox'), JSON.stringify(url)).toBe(false);
    }
  });

  it('keeps to the schema maxLength', () => {
    const head = 'https://partner.example.net/';
    expect(ok(head + 'a'.repeat(urlSchema.maxLength - head.length), 'live')).toBe(true);
    expect(ok(head + 'a'.repeat(urlSchema.maxLength - head.length + 1), 'live')).toBe(false);
  });

  it('accepts only what the schema pattern accepts', () => {
    expect(new RegExp(urlSchema.pattern).test('HTTPS://partner.example.net/')).toBe(false);
    expect(ok('HTTPS://partner.example.net/', 'sandbox')).toBe(false);
  });

  it('refuses a fragment and port 0 in both environments, as the schema pattern and x-url-rules say', () => {
    expect(at(registration, 'put', 'x-url-rules', 'form')).toMatch(/without a fragment.*without port 0/);
    const pattern = new RegExp(urlSchema.pattern);
    for (const url of [
      'http://127.0.0.1:9000/h#frag',
      'http://127.0.0.1:9000/h#',
      'https://partner.example.net/#',
      'http://127.0.0.1:0/',
      'http://127.0.0.1:00/hook',
      'https://partner.example.net:0',
      'https://[2001:4860:4860::8888]:0/h',
    ]) {
      expect(pattern.test(url), `pattern ${url}`).toBe(false);
      for (const env of ['live', 'sandbox'] as const) {
        const checked = checkWebhookUrl(url, env);
        expect(checked.ok, `${env} ${url}`).toBe(false);
        if (!checked.ok) expect(checked.details[0]?.message, url).toMatch(/fragment|port 0/);
      }
    }
    for (const url of ['http://127.0.0.1:9000/h', 'http://127.0.0.1:1/', 'https://partner.example.net:8443/h?a=0']) {
      expect(pattern.test(url), `pattern ${url}`).toBe(true);
      expect(ok(url, 'sandbox'), url).toBe(true);
    }
  });

  it('refuses credentials, even an empty user', () => {
    for (const url of [
      'https://user:pass@partner.example.net/',
      'https://user@partner.example.net/',
      'https://:pass@partner.example.net/',
      'https://@partner.example.net/',
    ]) {
      expect(ok(url, 'sandbox'), url).toBe(false);
    }
    expect(ok('https://partner.example.net/a@b', 'live')).toBe(true);
    expect(ok('https://partner.example.net/?to=a@b', 'live')).toBe(true);
  });
});

describe('checkWebhookUrl: literal addresses', () => {
  it('refuses, for live, the addresses the spec names', () => {
    // From the PUT description: 127.0.0.1, 10.0.0.0/8, 169.254.169.254, [::1].
    for (const host of ['127.0.0.1', '10.0.0.1', '10.255.255.254', '169.254.169.254', '[::1]']) {
      expect(ok(`https://${host}/hooks`, 'live'), host).toBe(false);
    }
  });

  const refusedEverywhere = [
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.0.1',
    '[fc00::1]',
    '[fdff:ffff::1]',
    '169.254.0.1',
    '[fe80::1]',
    '[febf::1]',
    '169.254.169.254',
    '[fd00:ec2::254]',
    '0.0.0.0',
    '[::]',
    '100.64.0.1',
    '100.127.255.254',
    '[::ffff:10.0.0.1]',
    '[::ffff:169.254.169.254]',
    '[::ffff:192.168.1.1]',
  ];

  it.each(refusedEverywhere)('refuses %s in live and sandbox', (host) => {
    expect(ok(`https://${host}/`, 'live')).toBe(false);
    expect(ok(`https://${host}/`, 'sandbox')).toBe(false);
  });

  const loopback = [
    '127.0.0.1',
    '127.255.0.9',
    '[::1]',
    '[::ffff:127.0.0.1]',
    'localhost',
    'LOCALHOST',
    'api.localhost',
    'localhost.',
  ];

  it.each(loopback)('refuses loopback %s for live and allows it in sandbox, over http too', (host) => {
    expect(ok(`https://${host}:8443/`, 'live')).toBe(false);
    expect(ok(`http://${host}:8080/hooks`, 'sandbox')).toBe(true);
  });

  it('sees through the spellings the URL parser normalises to loopback', () => {
    for (const host of ['2130706433', '0x7f.1', '127.1', '0177.0.0.1', '[0:0:0:0:0:0:0:1]']) {
      expect(ok(`https://${host}/`, 'live'), host).toBe(false);
    }
  });

  it('accepts public addresses, including those just outside the refused ranges', () => {
    for (const host of [
      '8.8.8.8',
      '172.15.255.255',
      '172.32.0.1',
      '192.167.255.255',
      '100.63.255.255',
      '100.128.0.0',
      '169.253.255.255',
      '[2606:4700::1111]',
      '[::ffff:8.8.8.8]',
    ]) {
      expect(checkWebhookUrl(`https://${host}/`, 'live'), host).toMatchObject({ ok: true, literalIp: true });
    }
  });
});

// Address by address against the IANA registries: address-class.test.ts.
describe('checkResolvedAddresses', () => {
  it('allows loopback only in sandbox (unless the deployment refuses it) and public everywhere', () => {
    expect(checkResolvedAddresses('h.example', ['127.0.0.1'], 'sandbox')).toEqual({ ok: true });
    expect(checkResolvedAddresses('h.example', ['127.0.0.1'], 'sandbox', { sandboxLoopback: false })).toMatchObject({
      ok: false,
      code: 'validation_error',
    });
    expect(checkResolvedAddresses('h.example', ['127.0.0.1'], 'live')).toMatchObject({
      ok: false,
      code: 'validation_error',
    });
    expect(checkResolvedAddresses('h.example', ['169.254.169.254'], 'sandbox')).toMatchObject({
      ok: false,
      code: 'validation_error',
    });
    expect(checkResolvedAddresses('h.example', ['93.184.215.14'], 'live')).toEqual({ ok: true });
    expect(checkResolvedAddresses('h.example', ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'], 'live')).toEqual({
      ok: true,
    });
    // One inward address refuses the name.
    expect(checkResolvedAddresses('h.example', ['93.184.215.14', '10.0.0.7'], 'live')).toMatchObject({ ok: false });
  });

  it('answers a name resolving inward as one that does not resolve, naming no address', () => {
    const inward = checkResolvedAddresses('h.example', ['10.0.0.7'], 'live');
    const nowhere = checkResolvedAddresses('h.example', [], 'live');
    expect(inward.ok ? '' : inward.message).not.toMatch(/10\.0\.0\.7|private/);
    expect(inward).toEqual(nowhere);
  });
});
