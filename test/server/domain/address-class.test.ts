// The address classifier, address by address, against the IANA IPv4 and IPv6 Special-Purpose
// Address Registries (https://www.iana.org/assignments/iana-ipv4-special-registry/,
// https://www.iana.org/assignments/iana-ipv6-special-registry/), the IPv6 Address Space Registry
// (only 2000::/3 is global unicast) and the embedded-IPv4 layouts of RFC 4291 (mapped,
// compatible), RFC 2765 (translated), RFC 6052 and RFC 8215 (NAT64), RFC 3056 (6to4) and RFC 4380
// (Teredo). Every expected class below is read from those documents, not from the code.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  checkResolvedAddresses,
  checkWebhookUrl,
  classifyAddress,
  describeAddress,
  isAllowedAddress,
  type AddressClass,
} from '../../../server/domain/webhook-url.ts';

describe('IPv4, block by block (IANA IPv4 Special-Purpose Address Registry)', () => {
  it.each<[string, AddressClass]>([
    ['0.0.0.0', 'unspecified'], // 0.0.0.0/32 "this host on this network"
    ['0.1.2.3', 'reserved'], // 0.0.0.0/8 "this network"
    ['0.255.255.255', 'reserved'],
    ['10.0.0.1', 'private'], // RFC 1918
    ['10.255.255.254', 'private'],
    ['100.64.0.1', 'cgnat'], // 100.64.0.0/10 shared address space
    ['100.127.255.254', 'cgnat'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['100.100.100.200', 'metadata'], // Alibaba Cloud metadata (inside shared space)
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.253.255.255', 'public'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    // 192.0.0.0/24 IETF protocol assignments, refused whole (DS-Lite, dummy, PCP and TURN anycast, NAT64 discovery).
    ['192.0.0.0', 'reserved'],
    ['192.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.0.9', 'reserved'],
    ['192.0.0.10', 'reserved'],
    ['192.0.0.170', 'reserved'],
    ['192.0.0.171', 'reserved'],
    ['192.0.0.192', 'metadata'], // Oracle Cloud metadata
    ['192.0.0.255', 'reserved'],
    ['192.0.1.0', 'public'],
    ['192.0.2.1', 'documentation'], // TEST-NET-1
    ['192.31.196.1', 'public'], // AS112-v4: globally reachable
    ['192.52.193.1', 'public'], // AMT: globally reachable
    ['192.88.99.1', 'reserved'], // deprecated 6to4 relay anycast
    ['192.168.0.1', 'private'],
    ['192.175.48.1', 'public'], // direct delegation AS112: globally reachable
    ['198.18.0.1', 'benchmarking'], // 198.18.0.0/15
    ['198.19.255.254', 'benchmarking'],
    ['198.17.255.255', 'public'],
    ['198.20.0.0', 'public'],
    ['198.51.100.7', 'documentation'], // TEST-NET-2
    ['203.0.113.9', 'documentation'], // TEST-NET-3
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'reserved'], // limited broadcast
    ['1.1.1.1', 'public'],
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['223.255.255.255', 'public'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });
});

describe('IPv6, block by block (IANA IPv6 Special-Purpose Address Registry, IPv6 Address Space)', () => {
  it.each<[string, AddressClass]>([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['100::1', 'reserved'], // discard-only 100::/64
    ['5f00::1', 'reserved'], // SRv6 SIDs
    ['2001::1', 'reserved'], // Teredo, its client 0.0.0.1 inverted: 255.255.255.254 (more below)
    ['2001:1::1', 'reserved'], // PCP anycast, inside 2001::/23 (refused whole)
    ['2001:1::2', 'reserved'], // TURN anycast
    ['2001:2::1', 'benchmarking'], // 2001:2::/48
    ['2001:3::1', 'reserved'], // AMT
    ['2001:4:112::1', 'reserved'], // AS112-v6
    ['2001:20::1', 'reserved'], // ORCHIDv2
    ['2001:30::1', 'reserved'], // DRIP DETs
    ['2001:1ff:ffff::1', 'reserved'], // last of 2001::/23
    ['2001:200::1', 'public'], // first after 2001::/23
    ['2001:db8::1', 'documentation'],
    ['2001:db8:ffff::1', 'documentation'],
    ['3fff::1', 'documentation'], // 3fff::/20
    ['3fff:fff:ffff::1', 'documentation'],
    ['3fff:1000::1', 'public'],
    ['2620:4f:8000::1', 'public'], // direct delegation AS112: globally reachable
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:ec2::253', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['[fe80::1]', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'private'], // site-local, deprecated (RFC 3879)
    ['feff::1', 'private'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    // Outside 2000::/3, the only global unicast block: reserved or unallocated.
    ['1fff:ffff::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['e000::1', 'reserved'],
    ['fbff::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001::1', 'public'],
    ['2002:808:808::1', 'public'], // 6to4 of 8.8.8.8
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls);
  });

  it.each(['example.com', '1.2.3', '01.2.3.4', '1.2.3.256', '', '::ffff:1.2.3.256', 'fe80::1::2', '[::1', '12345::'])(
    '%j is invalid',
    (ip) => {
      expect(classifyAddress(ip)).toBe('invalid');
    },
  );
});

describe('IPv4 embedded in IPv6: every form, normalised first', () => {
  it.each<[string, AddressClass, string]>([
    // IPv4-mapped ::ffff:0:0/96 (RFC 4291): the IPv4 address itself.
    ['::ffff:127.0.0.1', 'loopback', 'mapped'],
    ['::ffff:7f00:1', 'loopback', 'mapped'],
    ['::ffff:a9fe:a9fe', 'metadata', 'mapped'],
    ['::ffff:10.0.0.1', 'private', 'mapped'],
    ['::ffff:c000:1', 'reserved', 'mapped'],
    ['::ffff:8.8.8.8', 'public', 'mapped'],
    // IPv4-compatible ::/96 (RFC 4291, deprecated): refused whatever it carries.
    ['::a9fe:a9fe', 'metadata', 'compatible'],
    ['::7f00:1', 'loopback', 'compatible'],
    ['::127.0.0.1', 'loopback', 'compatible'],
    ['::a00:1', 'private', 'compatible'],
    ['::c612:1', 'benchmarking', 'compatible'],
    ['::808:808', 'reserved', 'compatible'],
    ['::2', 'reserved', 'compatible'],
    // IPv4-translated ::ffff:0:0:0/96 (RFC 2765).
    ['::ffff:0:7f00:1', 'loopback', 'translated'],
    ['::ffff:0:a9fe:a9fe', 'metadata', 'translated'],
    ['::ffff:0:808:808', 'reserved', 'translated'],
    // 6to4 2002::/16 (RFC 3056): the IPv4 address is bits 16-47.
    ['2002:7f00:1::1', 'loopback', '6to4'],
    ['2002:a9fe:a9fe::1', 'metadata', '6to4'],
    ['2002:c0a8:101::1', 'private', '6to4'],
    ['2002:c000:201::', 'documentation', '6to4'],
    ['2002:808:808::1', 'public', '6to4'],
    // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052): globally reachable when its IPv4 address is.
    ['64:ff9b::7f00:1', 'loopback', 'nat64'],
    ['64:ff9b::127.0.0.1', 'loopback', 'nat64'],
    ['64:ff9b::a9fe:a9fe', 'metadata', 'nat64'],
    ['64:ff9b::c000:201', 'documentation', 'nat64'],
    ['64:ff9b::808:808', 'public', 'nat64'],
    // Local-use NAT64 64:ff9b:1::/48 (RFC 8215): not globally reachable, refused whatever it carries.
    ['64:ff9b:1::7f00:1', 'loopback', 'nat64-local'],
    ['64:ff9b:1::a00:1', 'private', 'nat64-local'],
    ['64:ff9b:1::808:808', 'reserved', 'nat64-local'],
    // Teredo 2001::/32 (RFC 4380): the client's address is the last 32 bits, every bit inverted.
    // Server 65.54.227.120 (4136:e378); client 127.0.0.1 -> 80ff:fffe.
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', 'teredo'],
    ['2001:0:4136:e378:8000:63bf:5601:5601', 'metadata', 'teredo'], // 169.254.169.254
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'private', 'teredo'], // 10.0.0.1
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'reserved', 'teredo'], // 8.8.8.8
  ])('%s is %s (%s)', (ip, cls, form) => {
    const verdict = describeAddress(ip);
    expect(verdict.class).toBe(cls);
    expect(verdict.embedded?.form).toBe(form);
  });

  it('names the IPv4 address it found inside', () => {
    expect(describeAddress('2001:0:4136:e378:8000:63bf:80ff:fffe').embedded?.ipv4).toBe('127.0.0.1');
    expect(describeAddress('2002:a9fe:a9fe::1').embedded?.ipv4).toBe('169.254.169.254');
    expect(describeAddress('::ffff:0:7f00:1').embedded?.ipv4).toBe('127.0.0.1');
  });
});

// A second, independent reading of the IPv4 registry on 32-bit integers, for the property tests.
const IPV4_ORACLE: ReadonlyArray<[number, number, number, number, number, AddressClass]> = [
  [0, 0, 0, 0, 32, 'unspecified'],
  [169, 254, 169, 254, 32, 'metadata'],
  [100, 100, 100, 200, 32, 'metadata'],
  [192, 0, 0, 192, 32, 'metadata'],
  [255, 255, 255, 255, 32, 'reserved'],
  [192, 0, 0, 0, 24, 'reserved'],
  [192, 0, 2, 0, 24, 'documentation'],
  [192, 88, 99, 0, 24, 'reserved'],
  [198, 51, 100, 0, 24, 'documentation'],
  [203, 0, 113, 0, 24, 'documentation'],
  [169, 254, 0, 0, 16, 'link-local'],
  [192, 168, 0, 0, 16, 'private'],
  [198, 18, 0, 0, 15, 'benchmarking'],
  [172, 16, 0, 0, 12, 'private'],
  [100, 64, 0, 0, 10, 'cgnat'],
  [0, 0, 0, 0, 8, 'reserved'],
  [10, 0, 0, 0, 8, 'private'],
  [127, 0, 0, 0, 8, 'loopback'],
  [224, 0, 0, 0, 4, 'multicast'],
  [240, 0, 0, 0, 4, 'reserved'],
];

function ipv4Oracle(a: number, b: number, c: number, d: number): AddressClass {
  const n = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  // Longest prefix first (the table is sorted that way).
  for (const [w, x, y, z, bits, cls] of IPV4_ORACLE) {
    const net = ((w << 24) | (x << 16) | (y << 8) | z) >>> 0;
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((n & mask) >>> 0 === (net & mask) >>> 0) return cls;
  }
  return 'public';
}

const octet = fc.nat(255);
// Biased towards the interesting first octets so every range is hit often.
const firstOctet = fc.oneof(octet, fc.constantFrom(0, 10, 100, 127, 169, 172, 192, 198, 203, 224, 239, 240, 255));
const hex16 = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);

describe('every IPv4 address, in every form', () => {
  it('classifies IPv4 as the registry arithmetic does', () => {
    fc.assert(
      fc.property(firstOctet, octet, octet, octet, (a, b, c, d) => {
        expect(classifyAddress(`${a}.${b}.${c}.${d}`)).toBe(ipv4Oracle(a, b, c, d));
      }),
      { numRuns: 5000 },
    );
  });

  it('judges each embedded form by the IPv4 address it carries', () => {
    fc.assert(
      fc.property(firstOctet, octet, octet, octet, (a, b, c, d) => {
        const inner = ipv4Oracle(a, b, c, d);
        const hi = hex16(a, b);
        const lo = hex16(c, d);
        const inv = (x: number) => x ^ 0xff;
        // The forms that are the IPv4 address, or reach it when it is public.
        for (const ip of [
          `::ffff:${a}.${b}.${c}.${d}`,
          `::ffff:${hi}:${lo}`,
          `64:ff9b::${a}.${b}.${c}.${d}`,
          `64:ff9b::${hi}:${lo}`,
          `2002:${hi}:${lo}::1`,
        ]) {
          expect(classifyAddress(ip), ip).toBe(inner);
        }
        // The deprecated, local and tunnelled forms: never public.
        const refused = inner === 'public' ? 'reserved' : inner;
        const forms = [
          `::ffff:0:${hi}:${lo}`,
          `64:ff9b:1::${hi}:${lo}`,
          `2001:0:4136:e378:8000:63bf:${hex16(inv(a), inv(b))}:${hex16(inv(c), inv(d))}`,
        ];
        // ::0.0.0.0 and ::0.0.0.1 are the unspecified and loopback addresses themselves.
        if (a + b + c !== 0 || d > 1) forms.push(`::${hi}:${lo}`);
        for (const ip of forms) expect(classifyAddress(ip), ip).toBe(refused);
      }),
      { numRuns: 3000 },
    );
  });

  it('never lets live reach a non-public IPv4 address through any form, nor sandbox reach loopback through a translator', () => {
    fc.assert(
      fc.property(firstOctet, octet, octet, octet, (a, b, c, d) => {
        if (ipv4Oracle(a, b, c, d) === 'public') return;
        const hi = hex16(a, b);
        const lo = hex16(c, d);
        for (const ip of [
          `${a}.${b}.${c}.${d}`,
          `::ffff:${hi}:${lo}`,
          `::ffff:0:${hi}:${lo}`,
          `64:ff9b::${hi}:${lo}`,
          `64:ff9b:1::${hi}:${lo}`,
          `2002:${hi}:${lo}::`,
        ]) {
          expect(isAllowedAddress(describeAddress(ip), 'live'), ip).toBe(false);
        }
        for (const ip of [
          `::ffff:0:${hi}:${lo}`,
          `64:ff9b::${hi}:${lo}`,
          `64:ff9b:1::${hi}:${lo}`,
          `2002:${hi}:${lo}::`,
        ]) {
          expect(isAllowedAddress(describeAddress(ip), 'sandbox'), ip).toBe(false);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

describe('the rule of each environment', () => {
  // Issue 19, finding 2: live registration accepted every one of these.
  const ISSUE_19 = [
    '[::a9fe:a9fe]',
    '[::7f00:1]',
    '[::a00:1]',
    '[2002:7f00:1::1]',
    '[64:ff9b:1::7f00:1]',
    '[::ffff:0:7f00:1]',
    '[fec0::1]',
    '192.0.0.1',
    '198.18.0.1',
  ];

  it.each(ISSUE_19)('refuses https://%s/ for live and for sandbox', (host) => {
    for (const env of ['live', 'sandbox'] as const) {
      const result = checkWebhookUrl(`https://${host}/hook`, env);
      expect(result.ok, `${env} ${host}`).toBe(false);
      if (!result.ok) expect(result.message).toContain('webhooks');
    }
  });

  it('sandbox takes loopback itself, and IPv4-mapped loopback, but not loopback behind a translator or tunnel', () => {
    for (const ip of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1'])
      expect(isAllowedAddress(describeAddress(ip), 'sandbox'), ip).toBe(true);
    for (const ip of [
      '::7f00:1',
      '::ffff:0:7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b:1::7f00:1',
      '2002:7f00:1::1',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
    ]) {
      expect(isAllowedAddress(describeAddress(ip), 'sandbox'), ip).toBe(false);
    }
  });

  it('live takes public addresses in each family, IPv4-mapped, NAT64 and 6to4 of a public one', () => {
    for (const ip of [
      '93.184.216.34',
      '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
      '::ffff:93.184.216.34',
      '64:ff9b::5db8:d822',
      '2002:5db8:d822::1',
    ]) {
      expect(checkResolvedAddresses('partner.example.net', [ip], 'live'), ip).toEqual({ ok: true });
    }
  });

  it('says what the address is, which block refused it, and the rule (for an address the partner wrote or the log)', () => {
    const refusal = addressRefusal('::7f00:1', 'live');
    expect(refusal).toContain('loopback');
    expect(refusal).toContain('127.0.0.1');
    expect(refusal).toContain('::/96');
    expect(refusal).toContain('live webhooks must reach a public address');
    const literal = checkWebhookUrl('https://198.18.0.1/hook', 'live');
    expect(literal.ok ? '' : literal.message).toMatch(
      /198\.18\.0\.1 is a benchmarking address \(198\.18\.0\.0\/15: benchmarking, RFC 2544\)/,
    );
  });
});
