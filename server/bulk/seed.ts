// The sandbox user's own domains, so bulk operations can be tried right after signing in.
// Names and settings are fixed; expiry dates are set relative to the first start (a fixed date
// would drift into the past). Two are there to show the failure modes: one expired a week ago
// (still renewable) and one in its redemption period (every operation fails `invalid_state`).
import type { Store } from '../store/index.ts';
import type { ManagedDomainChange } from '../store/user-domains.ts';

const DAY_MS = 86_400_000;

/** Documented in the README; the tests read this list rather than repeating it. */
export const SANDBOX_USER_DOMAINS: readonly string[] = [
  'harborlightbakery.com',
  'quietpinestudio.com',
  'northwindcycles.com',
  'copperkettlecafe.com',
  'bluefernlabs.io',
  'tidewatermaps.io',
  'sparrowledger.io',
  'lanternpress.net',
  'stonebridgeguild.net',
  'maplecrestfarm.org',
  'openorchard.org',
  'brightquarry.co',
  'velvetcompass.co',
  'kiteandkeel.dev',
  'pixelmeadow.dev',
  'saltmarshradio.app',
  'emberfieldgames.app',
  'wildthymekitchen.com',
  'granitepeakgear.com',
  'silverbirchhomes.com',
  'cobaltharbor.net',
  'riverstonetrust.org',
  'foxgloveflorist.co',
  'sandbox-expired.com',
  'sandbox-redemption.com',
];

const NAMESERVERS = [
  ['ns1.sandboxdns.net', 'ns2.sandboxdns.net'],
  ['ns1.exampledns.net', 'ns2.exampledns.net', 'ns3.exampledns.net'],
];

/** The state of the i-th sandbox domain, seeded at `now`. */
export function sandboxDomainState(domain: string, i: number, now: number): ManagedDomainChange {
  const expiresAt =
    domain === 'sandbox-expired.com'
      ? now - 7 * DAY_MS
      : domain === 'sandbox-redemption.com'
        ? now - 45 * DAY_MS
        : now + (30 + ((i * 53) % 700)) * DAY_MS;
  return {
    expiresAt: Math.floor(expiresAt / 1000) * 1000,
    locked: i % 3 !== 0,
    autoRenew: i % 2 === 0,
    nameservers: [...(NAMESERVERS[i % NAMESERVERS.length] as string[])],
  };
}

/**
 * Gives `userId` the sandbox domains it does not have yet (a domain someone already owns is
 * left alone), so running it at every start is harmless. Returns how many were added.
 */
export async function seedUserDomains(
  store: Store,
  userId: string,
  now: number,
  domains: readonly string[] = SANDBOX_USER_DOMAINS,
): Promise<number> {
  return store.userDomains.insertIfAbsent(
    userId,
    domains.map((domain, i) => ({ domain, ...sandboxDomainState(domain, i, now) })),
    now,
  );
}
