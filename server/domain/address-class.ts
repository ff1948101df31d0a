import { BlockList, isIP } from 'node:net';

/** What an IP address is, for deciding whether the server may send a webhook to it. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'unspecified'
  | 'cgnat'
  | 'multicast'
  | 'reserved'
  | 'invalid';

type Range = readonly [network: string, prefix: number];

// Checked in this order, so the metadata addresses (inside link-local and fc00::/7) and the
// unspecified address (inside 0/8) get their own, more telling, class.
const RANGES: ReadonlyArray<readonly [Exclude<AddressClass, 'public' | 'invalid'>, readonly Range[]]> = [
  ['metadata', [['169.254.169.254', 32], ['fd00:ec2::254', 128]]],
  ['unspecified', [['0.0.0.0', 32], ['::', 128]]],
  ['loopback', [['127.0.0.0', 8], ['::1', 128]]],
  ['private', [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['fc00::', 7]]],
  ['link-local', [['169.254.0.0', 16], ['fe80::', 10]]],
  ['cgnat', [['100.64.0.0', 10]]],
  ['multicast', [['224.0.0.0', 4], ['ff00::', 8]]],
  // "This network" and the old class E block, broadcast included: nothing a receiver listens on.
  ['reserved', [['0.0.0.0', 8], ['240.0.0.0', 4]]],
];

// IPv4 inside IPv6: Node's BlockList already matches IPv4-mapped addresses (::ffff:a.b.c.d)
// against IPv4 rules, and the NAT64 well-known prefix (64:ff9b::/96) is added here, since on a
// NAT64 network such an address reaches the embedded IPv4 one.
const NAT64 = '64:ff9b::';

function buildList(ranges: readonly Range[]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) {
    const family = isIP(network) === 4 ? 'ipv4' : 'ipv6';
    list.addSubnet(network, prefix, family);
    if (family === 'ipv4') list.addSubnet(`${NAT64}${network}`, 96 + prefix, 'ipv6');
  }
  return list;
}

const LISTS = RANGES.map(([cls, ranges]) => [cls, buildList(ranges)] as const);

/**
 * Classifies a literal address, as found in a URL or returned by DNS. Brackets and an IPv6 zone
 * id are ignored: neither changes which host is reached.
 */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 0) return 'invalid';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  for (const [cls, list] of LISTS) if (list.check(bare, family)) return cls;
  return 'public';
}
