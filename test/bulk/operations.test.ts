// The pure rules of the bulk operations: request parsing and the effect on one domain.
import { describe, expect, it } from 'vitest';
import {
  addYears,
  applyCommand,
  MAX_BULK_DOMAINS,
  parseBulkRequest,
  RENEWAL_GRACE_DAYS,
} from '../../server/bulk/operations.ts';
import { ApiError } from '../../server/http/errors.ts';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const DAY = 86_400_000;
const state = {
  expiresAt: Date.parse('2027-03-11T17:42:06Z'),
  locked: false,
  autoRenew: false,
  nameservers: ['ns1.a.net', 'ns2.a.net'],
};

function refusal(op: string, body: unknown): ApiError {
  try {
    parseBulkRequest(op, body);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error(`${op} ${JSON.stringify(body)} was accepted`);
}

describe('parseBulkRequest', () => {
  it('reads each operation with its params', () => {
    expect(parseBulkRequest('renew', { domains: ['a.com'], params: { years: 2 } })).toEqual({
      command: { op: 'renew', years: 2 },
      domains: ['a.com'],
    });
    expect(
      parseBulkRequest('set_nameservers', { domains: ['a.com'], params: { nameservers: ['ns1.x.net', 'ns2.x.net'] } })
        .command,
    ).toEqual({
      op: 'set_nameservers',
      nameservers: ['ns1.x.net', 'ns2.x.net'],
    });
    expect(parseBulkRequest('lock', { domains: ['a.com'] }).command).toEqual({ op: 'lock' });
    expect(parseBulkRequest('unlock', { domains: ['a.com'] }).command).toEqual({ op: 'unlock' });
    expect(parseBulkRequest('set_auto_renew', { domains: ['a.com'], params: { enabled: false } }).command).toEqual({
      op: 'set_auto_renew',
      enabled: false,
    });
  });

  it.each([
    ['frobnicate', { domains: ['a.com'] }, '/path/op'],
    ['renew', { domains: ['a.com'] }, '/body/params'],
    ['renew', { domains: ['a.com'], params: { years: 0 } }, '/body/params/years'],
    ['renew', { domains: ['a.com'], params: { years: 11 } }, '/body/params/years'],
    ['renew', { domains: ['a.com'], params: { years: 1.5 } }, '/body/params/years'],
    ['renew', { domains: ['a.com'], params: { years: '2' } }, '/body/params/years'],
    ['renew', { domains: ['a.com'], params: { enabled: true } }, '/body/params'],
    ['set_nameservers', { domains: ['a.com'], params: { nameservers: ['ns1.x.net'] } }, '/body/params/nameservers'],
    [
      'set_nameservers',
      { domains: ['a.com'], params: { nameservers: ['ns1.x.net', 'ns1.x.net'] } },
      '/body/params/nameservers',
    ],
    ['set_nameservers', { domains: ['a.com'], params: { years: 1 } }, '/body/params'],
    ['set_auto_renew', { domains: ['a.com'], params: { enabled: 'yes' } }, '/body/params/enabled'],
    ['lock', { domains: ['a.com'], params: { years: 1 } }, '/body/params'],
    ['unlock', { domains: ['a.com'], params: {} }, '/body/params'],
    ['lock', { domains: [] }, '/body/domains'],
    ['lock', { domains: ['a.com', 'a.com'] }, '/body/domains'],
    ['lock', { domains: ['Not A Domain'] }, '/body/domains/0'],
    ['lock', { domains: ['a.com'], extra: 1 }, '/body'],
    ['lock', {}, '/body/domains'],
  ])('%s %j is a 400 validation_error at %s', (op, body, path) => {
    const err = refusal(op, body);
    expect(err.status).toBe(400);
    expect(err.code).toBe('validation_error');
    expect(err.details?.map((d) => d.path)).toContain(path);
    expect(err.message.length).toBeGreaterThan(10);
  });

  it(`takes ${MAX_BULK_DOMAINS} domains and refuses one more`, () => {
    const domains = Array.from({ length: MAX_BULK_DOMAINS + 1 }, (_, i) => `d${i}.com`);
    expect(parseBulkRequest('lock', { domains: domains.slice(0, MAX_BULK_DOMAINS) }).domains).toHaveLength(
      MAX_BULK_DOMAINS,
    );
    expect(refusal('lock', { domains }).details?.[0]?.path).toBe('/body/domains');
  });
});

describe('addYears', () => {
  it('adds calendar years in UTC', () => {
    expect(new Date(addYears(Date.parse('2027-03-11T17:42:06Z'), 2)).toISOString()).toBe('2029-03-11T17:42:06.000Z');
  });
  it('moves 29 February to 28 February in a common year', () => {
    expect(new Date(addYears(Date.parse('2028-02-29T12:00:00Z'), 1)).toISOString()).toBe('2029-02-28T12:00:00.000Z');
    expect(new Date(addYears(Date.parse('2028-02-29T12:00:00Z'), 4)).toISOString()).toBe('2032-02-29T12:00:00.000Z');
  });
});

describe('applyCommand', () => {
  const opts = { now: NOW, maxTermYears: 10 };

  it('renews from the current expiry', () => {
    const out = applyCommand({ op: 'renew', years: 2 }, 'a.com', state, opts);
    expect(out).toEqual({ ok: true, next: { ...state, expiresAt: Date.parse('2029-03-11T17:42:06Z') } });
  });

  it('refuses a renewal past the maximum term from today, and allows one up to it', () => {
    const near = { ...state, expiresAt: addYears(NOW, 9) };
    expect(applyCommand({ op: 'renew', years: 1 }, 'a.com', near, opts).ok).toBe(true);
    const out = applyCommand({ op: 'renew', years: 2 }, 'a.com', near, opts);
    expect(out).toMatchObject({ ok: false, code: 'validation_error' });
    expect(applyCommand({ op: 'renew', years: 2 }, 'a.com', near, { now: NOW, maxTermYears: 5 })).toMatchObject({
      ok: false,
    });
  });

  it('renews an expired domain within the grace period from its old expiry', () => {
    const expired = { ...state, expiresAt: NOW - 7 * DAY };
    expect(applyCommand({ op: 'renew', years: 1 }, 'a.com', expired, opts)).toEqual({
      ok: true,
      next: { ...expired, expiresAt: addYears(NOW - 7 * DAY, 1) },
    });
  });

  it('refuses every operation on a domain in its redemption period', () => {
    const redemption = { ...state, expiresAt: NOW - (RENEWAL_GRACE_DAYS + 1) * DAY };
    for (const command of [
      { op: 'renew', years: 1 },
      { op: 'lock' },
      { op: 'set_auto_renew', enabled: true },
    ] as const) {
      expect(applyCommand(command, 'a.com', redemption, opts), command.op).toMatchObject({
        ok: false,
        code: 'invalid_state',
      });
    }
  });

  it('sets nameservers, the lock and auto-renewal and leaves the rest alone', () => {
    expect(
      applyCommand({ op: 'set_nameservers', nameservers: ['ns1.b.net', 'ns2.b.net'] }, 'a.com', state, opts),
    ).toEqual({
      ok: true,
      next: { ...state, nameservers: ['ns1.b.net', 'ns2.b.net'] },
    });
    expect(applyCommand({ op: 'lock' }, 'a.com', state, opts)).toEqual({ ok: true, next: { ...state, locked: true } });
    expect(applyCommand({ op: 'unlock' }, 'a.com', { ...state, locked: true }, opts)).toEqual({
      ok: true,
      next: { ...state, locked: false },
    });
    expect(applyCommand({ op: 'set_auto_renew', enabled: true }, 'a.com', state, opts)).toEqual({
      ok: true,
      next: { ...state, autoRenew: true },
    });
  });
});
