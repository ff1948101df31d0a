// The anonymous public rate limit counts an IPv6 client by its /64, as the registration class and
// the sign-in throttle do (the public document's `x-rate-limit-classes`, `public` key): counted per
// /128, the 2^64 addresses one subscriber usually holds would each open a fresh window. Tested on
// the bucket function production mounts (server/public-api/rate-limit.ts publicBuckets).
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import type { RateLimitClass } from '../../server/domain/rate-limit.ts';
import { publicBuckets } from '../../server/public-api/rate-limit.ts';

const buckets = publicBuckets({
  public: { quota: 60, windowSeconds: 60, per: 'caller' },
  registration: { quota: 60, windowSeconds: 3600, per: 'address' },
} satisfies Record<string, RateLimitClass>);

const anonymous = (remoteAddress: string) =>
  buckets.bucketOf(
    { socket: { remoteAddress } } as unknown as Request,
    { locals: {} } as unknown as Response,
    'public',
  );

describe('the public class without a bearer token (per caller: the client address)', () => {
  it('counts every address of one IPv6 /64 in one window', () => {
    const one = anonymous('2001:db8:1:2::1');
    expect(anonymous('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(one);
    expect(anonymous('2001:DB8:1:2:0:0:0:abcd')).toBe(one);
    expect(one).toContain('2001:db8:1:2::/64');
  });

  it('gives another /64 a window of its own', () => {
    expect(anonymous('2001:db8:1:3::1')).not.toBe(anonymous('2001:db8:1:2::1'));
  });

  it('counts IPv4 per address, an IPv4-mapped address as its IPv4', () => {
    expect(anonymous('192.0.2.1')).not.toBe(anonymous('192.0.2.2'));
    expect(anonymous('::ffff:192.0.2.1')).toBe(anonymous('192.0.2.1'));
  });

  it('counts as the registration class counts the same address', () => {
    const registration = buckets.bucketOf(
      { socket: { remoteAddress: '2001:db8:1:2::9' } } as unknown as Request,
      { locals: {} } as unknown as Response,
      'registration',
    );
    expect(anonymous('2001:db8:1:2::9').split(':ip:')[1]).toBe(registration.split(':net:')[1]);
  });
});
