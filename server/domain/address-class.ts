import { isIP } from 'node:net';

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
  | 'documentation'
  | 'benchmarking'
  | 'reserved'
  | 'invalid';

/**
 * IPv6 forms that carry an IPv4 address. Only `mapped` IS the IPv4 address (a dual-stack socket
 * connects to it); the others are reached through a translator, relay or tunnel.
 */
export type Embedding = 'mapped' | 'compatible' | 'translated' | 'nat64' | 'nat64-local' | '6to4' | 'teredo';

export interface RegistryEntry {
  /** The block in CIDR notation, e.g. `192.0.0.0/24`. */
  block: string;
  name: string;
  /** Where the block is defined, e.g. `RFC 6890`. */
  source: string;
}

export interface AddressVerdict {
  class: AddressClass;
  /** The most specific registry entry that covers the address, if any. */
  entry?: RegistryEntry;
  /** For an IPv6 form carrying an IPv4 address: that address and what it is. */
  embedded?: { form: Embedding; ipv4: string; verdict: AddressVerdict };
}

type Cls = Exclude<AddressClass, 'public' | 'invalid'>;
type Row = readonly [block: string, cls: Cls, name: string, source: string, embeds?: Embedding];

// The special-purpose blocks, from the IANA IPv4 and IPv6 Special-Purpose Address Registries
//   https://www.iana.org/assignments/iana-ipv4-special-registry/
//   https://www.iana.org/assignments/iana-ipv6-special-registry/
// (RFC 6890 defines their columns), plus multicast from the IPv4 Multicast Address Space
// Registry and the IPv6 Address Space Registry, and the cloud metadata addresses, which no
// registry lists but every cloud serves on. The most specific block decides, as in a routing
// table. Two deliberate departures from the registries' "Globally Reachable" column: the IETF
// protocol-assignment blocks 192.0.0.0/24 and 2001::/23 are refused whole, although a few of their
// entries (PCP, TURN and DNS-SD anycast, AMT, AS112-v6, ORCHIDv2, DRIP) are marked globally
// reachable, because they are anycast service or identifier addresses no partner receives
// webhooks on; and any IPv6 address outside 2000::/3, the only block the IPv6 Address Space
// Registry allocates as global unicast, is reserved (so unallocated space is refused, not
// guessed public). The registries' globally reachable blocks outside those (AS112 192.31.196.0/24,
// 192.175.48.0/24, 2620:4f:8000::/48, AMT 192.52.193.0/24) are ordinary unicast and stay public.
const IPV4: readonly Row[] = [
  ['0.0.0.0/8', 'reserved', '"this network"', 'RFC 791'],
  ['0.0.0.0/32', 'unspecified', '"this host on this network"', 'RFC 1122'],
  ['10.0.0.0/8', 'private', 'private use', 'RFC 1918'],
  ['100.64.0.0/10', 'cgnat', 'shared address space', 'RFC 6598'],
  ['100.100.100.200/32', 'metadata', 'Alibaba Cloud instance metadata', 'cloud provider'],
  ['127.0.0.0/8', 'loopback', 'loopback', 'RFC 1122'],
  ['169.254.0.0/16', 'link-local', 'link local', 'RFC 3927'],
  ['169.254.169.254/32', 'metadata', 'cloud instance metadata (AWS, GCP, Azure and others)', 'cloud provider'],
  ['172.16.0.0/12', 'private', 'private use', 'RFC 1918'],
  [
    '192.0.0.0/24',
    'reserved',
    'IETF protocol assignments (DS-Lite, PCP and TURN anycast, NAT64 discovery)',
    'RFC 6890',
  ],
  ['192.0.0.192/32', 'metadata', 'Oracle Cloud instance metadata', 'cloud provider'],
  ['192.0.2.0/24', 'documentation', 'documentation (TEST-NET-1)', 'RFC 5737'],
  ['192.88.99.0/24', 'reserved', '6to4 relay anycast, deprecated', 'RFC 7526'],
  ['192.168.0.0/16', 'private', 'private use', 'RFC 1918'],
  ['198.18.0.0/15', 'benchmarking', 'benchmarking', 'RFC 2544'],
  ['198.51.100.0/24', 'documentation', 'documentation (TEST-NET-2)', 'RFC 5737'],
  ['203.0.113.0/24', 'documentation', 'documentation (TEST-NET-3)', 'RFC 5737'],
  ['224.0.0.0/4', 'multicast', 'multicast', 'RFC 5771'],
  ['240.0.0.0/4', 'reserved', 'reserved for future use', 'RFC 1112'],
  ['255.255.255.255/32', 'reserved', 'limited broadcast', 'RFC 919'],
];

const IPV6: readonly Row[] = [
  ['::/128', 'unspecified', 'unspecified address', 'RFC 4291'],
  ['::1/128', 'loopback', 'loopback address', 'RFC 4291'],
  ['::/96', 'reserved', 'IPv4-compatible address, deprecated', 'RFC 4291', 'compatible'],
  ['::ffff:0:0/96', 'reserved', 'IPv4-mapped address', 'RFC 4291', 'mapped'],
  ['::ffff:0:0:0/96', 'reserved', 'IPv4-translated address', 'RFC 2765', 'translated'],
  ['64:ff9b::/96', 'reserved', 'IPv4/IPv6 translation (NAT64 well-known prefix)', 'RFC 6052', 'nat64'],
  ['64:ff9b:1::/48', 'reserved', 'local-use IPv4/IPv6 translation', 'RFC 8215', 'nat64-local'],
  ['100::/64', 'reserved', 'discard-only address block', 'RFC 6666'],
  ['2001::/23', 'reserved', 'IETF protocol assignments', 'RFC 2928'],
  ['2001::/32', 'reserved', 'Teredo', 'RFC 4380', 'teredo'],
  ['2001:2::/48', 'benchmarking', 'benchmarking', 'RFC 5180'],
  ['2001:db8::/32', 'documentation', 'documentation', 'RFC 3849'],
  ['2002::/16', 'reserved', '6to4', 'RFC 3056', '6to4'],
  ['3fff::/20', 'documentation', 'documentation', 'RFC 9637'],
  ['5f00::/16', 'reserved', 'segment routing (SRv6) SIDs', 'RFC 9602'],
  ['fc00::/7', 'private', 'unique local', 'RFC 4193'],
  ['fd00:ec2::254/128', 'metadata', 'AWS instance metadata', 'cloud provider'],
  ['fe80::/10', 'link-local', 'link-local unicast', 'RFC 4291'],
  ['fec0::/10', 'private', 'site-local, deprecated', 'RFC 3879'],
  ['ff00::/8', 'multicast', 'multicast', 'RFC 4291'],
];

const OUTSIDE_GLOBAL_UNICAST: RegistryEntry = {
  block: '2000::/3 (outside)',
  name: 'not global unicast',
  source: 'IANA IPv6 Address Space',
};
const GLOBAL_UNICAST = { bytes: parseIpv6('2000::'), bits: 3 };

interface Block {
  bytes: Uint8Array;
  bits: number;
  cls: Cls;
  entry: RegistryEntry;
  embeds: Embedding | undefined;
}

function compile(rows: readonly Row[], parse: (text: string) => Uint8Array): Block[] {
  return rows.map(([block, cls, name, source, embeds]) => {
    const [network = '', bits = ''] = block.split('/');
    return { bytes: parse(network), bits: Number(bits), cls, entry: { block, name, source }, embeds };
  });
}

const BLOCKS4 = compile(IPV4, parseIpv4);
const BLOCKS6 = compile(IPV6, parseIpv6);

function within(address: Uint8Array, network: Uint8Array, bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((address[i / 8] ?? 0) & mask) !== ((network[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function mostSpecific(address: Uint8Array, blocks: readonly Block[]): Block | undefined {
  let best: Block | undefined;
  for (const b of blocks) if (within(address, b.bytes, b.bits) && (!best || b.bits > best.bits)) best = b;
  return best;
}

function parseIpv4(text: string): Uint8Array {
  return Uint8Array.from(text.split('.').map(Number));
}

/** 16 bytes of an address `isIP` accepts as IPv6 (zone id already removed). */
function parseIpv6(text: string): Uint8Array {
  // A dotted tail (::ffff:1.2.3.4) becomes its two hex groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  const hex = dotted
    ? text.slice(0, dotted.index) +
      [
        [dotted[1], dotted[2]],
        [dotted[3], dotted[4]],
      ]
        .map(([hi, lo]) => ((Number(hi) << 8) | Number(lo)).toString(16))
        .join(':')
    : text;
  const [left = '', right] = hex.split('::');
  const head = left === '' ? [] : left.split(':');
  const tail = right === undefined || right === '' ? [] : right.split(':');
  const groups =
    right === undefined ? head : [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = parseInt(g, 16);
    bytes[2 * i] = n >> 8;
    bytes[2 * i + 1] = n & 0xff;
  });
  return bytes;
}

/** Where each form keeps its IPv4 address (byte offsets into the IPv6 address). */
function embeddedIpv4(form: Embedding, bytes: Uint8Array): number[] {
  switch (form) {
    case '6to4':
      return [...bytes.subarray(2, 6)];
    case 'teredo':
      // The client's address, stored with every bit inverted (RFC 4380 §4).
      return [...bytes.subarray(12, 16)].map((b) => b ^ 0xff);
    default:
      // The last 32 bits: mapped, compatible, translated, and NAT64 with a /96 prefix (RFC 6052
      // §2.2, the layout of the well-known prefix and the usual one of the local-use /48, which
      // is refused whatever its layout).
      return [...bytes.subarray(12, 16)];
  }
}

// Forms whose address is public when the IPv4 address inside is: the mapped form is that address,
// the NAT64 well-known prefix is globally reachable (IANA), and 6to4 routes to the IPv4 host.
// The deprecated, local or tunnelled forms are refused whatever they carry.
const PUBLIC_WHEN_EMBEDDED_IS: ReadonlySet<Embedding> = new Set(['mapped', 'nat64', '6to4']);

function classifyIpv4(bytes: Uint8Array): AddressVerdict {
  const block = mostSpecific(bytes, BLOCKS4);
  return block ? { class: block.cls, entry: block.entry } : { class: 'public' };
}

function classifyIpv6(bytes: Uint8Array): AddressVerdict {
  const block = mostSpecific(bytes, BLOCKS6);
  if (!block)
    return within(bytes, GLOBAL_UNICAST.bytes, GLOBAL_UNICAST.bits)
      ? { class: 'public' }
      : { class: 'reserved', entry: OUTSIDE_GLOBAL_UNICAST };
  if (!block.embeds) return { class: block.cls, entry: block.entry };
  const octets = embeddedIpv4(block.embeds, bytes);
  const inner = classifyIpv4(Uint8Array.from(octets));
  const embedded = { form: block.embeds, ipv4: octets.join('.'), verdict: inner };
  // What the IPv4 address is decides when it is not public: a loopback or metadata address
  // wrapped in IPv6 is still one, and says so.
  if (inner.class !== 'public') return { class: inner.class, entry: block.entry, embedded };
  return { class: PUBLIC_WHEN_EMBEDDED_IS.has(block.embeds) ? 'public' : block.cls, entry: block.entry, embedded };
}

/**
 * What a literal address is, as found in a URL or returned by DNS. Brackets and an IPv6 zone id
 * are ignored: neither changes which host is reached. Only strict forms count (dotted decimal
 * IPv4, RFC 4291 IPv6): the WHATWG URL parser has already turned `0x7f.1` or `2130706433` into
 * dotted decimal, and DNS answers are in it.
 */
export function describeAddress(ip: string): AddressVerdict {
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return classifyIpv4(parseIpv4(bare));
  if (version === 6) return classifyIpv6(parseIpv6(bare));
  return { class: 'invalid' };
}

export function classifyAddress(ip: string): AddressClass {
  return describeAddress(ip).class;
}
