// RFC 9224 DNS bootstrap: which RDAP service answers for a domain. Pure: the file is parsed
// once and looked up per query.
import { readFileSync } from 'node:fs';

export interface DnsBootstrap {
  publication: string;
  /** Lowercase entry (a TLD, or several labels such as `sub.example`) → base URLs, HTTPS first. */
  entries: ReadonlyMap<string, readonly string[]>;
}

export class BootstrapError extends Error {}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Validates a parsed bootstrap file (IANA's `dns.json` format); throws BootstrapError naming the fault. */
export function parseBootstrap(json: unknown): DnsBootstrap {
  if (typeof json !== 'object' || json === null) throw new BootstrapError('bootstrap file is not a JSON object');
  const { version, publication, services } = json as Record<string, unknown>;
  if (version !== '1.0') throw new BootstrapError(`bootstrap version must be "1.0", got ${JSON.stringify(version)}`);
  if (typeof publication !== 'string') throw new BootstrapError('bootstrap publication is missing');
  if (!Array.isArray(services)) throw new BootstrapError('bootstrap services must be an array');
  const entries = new Map<string, string[]>();
  services.forEach((service: unknown, i) => {
    if (!Array.isArray(service) || service.length !== 2 || !isStringArray(service[0]) || !isStringArray(service[1])) {
      throw new BootstrapError(`bootstrap service ${i} must be [[entries], [base URLs]]`);
    }
    const urls = service[1].filter((u) => /^https?:\/\//i.test(u));
    // RFC 9224 §3 lets clients pick among the URLs; HTTPS first (RFC 7481 §3.2).
    urls.sort((a, b) => Number(!a.toLowerCase().startsWith('https:')) - Number(!b.toLowerCase().startsWith('https:')));
    if (urls.length === 0) return;
    // Entries are compared case-insensitively; a trailing root dot is not part of the name.
    for (const entry of service[0]) entries.set(entry.toLowerCase().replace(/\.$/, ''), urls);
  });
  return { publication, entries };
}

/** Reads and parses a bootstrap file from disk. */
export function loadBootstrap(path: string | URL): DnsBootstrap {
  return parseBootstrap(JSON.parse(readFileSync(path, 'utf8')) as unknown);
}

/** The bootstrap file shipped with the server (a subset; see README.md). */
export const SHIPPED_BOOTSTRAP_FILE = new URL('./bootstrap-dns.json', import.meta.url);

/**
 * The base URLs for `domain`: the entry matching the most trailing labels wins (RFC 9224 §4),
 * so `sub.example` beats `example` for `a.sub.example`. Undefined when no entry matches.
 */
export function baseUrlsFor(bootstrap: DnsBootstrap, domain: string): readonly string[] | undefined {
  const labels = domain.toLowerCase().replace(/\.$/, '').split('.');
  for (let i = 0; i < labels.length; i++) {
    const urls = bootstrap.entries.get(labels.slice(i).join('.'));
    if (urls) return urls;
  }
  return undefined;
}
