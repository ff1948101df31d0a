import { isIP } from 'node:net';
import { describeAddress, type AddressClass, type AddressVerdict } from './address-class.ts';
import type { Environment } from './environment.ts';
import { carriesUserinfo } from './url-userinfo.ts';

export { classifyAddress, describeAddress, type AddressClass, type AddressVerdict } from './address-class.ts';

/** maxLength of WebhookRegistrationRequest.url. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

export type WebhookUrlCheck =
  | {
      ok: true;
      /** The URL as the WHATWG parser normalises it; deliveries go to exactly this. */
      href: string;
      /** Host without IPv6 brackets. */
      hostname: string;
      /** False for a name: the caller must resolve it and pass every address to checkResolvedAddress. */
      literalIp: boolean;
    }
  | ValidationFailure;

export interface ValidationFailure {
  ok: false;
  code: 'validation_error';
  message: string;
  details: Array<{ path: string; message: string }>;
}

const PATH = '/body/url';

function refuse(message: string): ValidationFailure {
  return { ok: false, code: 'validation_error', message, details: [{ path: PATH, message }] };
}

/** The deployment's part of the destination rule (SANDBOX_WEBHOOK_LOOPBACK). */
export interface DestinationOptions {
  /**
   * Whether sandbox webhooks may reach loopback (default true: a developer's own `npm start`).
   * A hosted or shared sandbox turns it off, so its loopback is not a port scanner for anyone
   * holding a sandbox key.
   */
  sandboxLoopback?: boolean;
}

/**
 * The default of SANDBOX_WEBHOOK_LOOPBACK: sandbox webhooks may reach loopback only on a
 * developer's own server, one that listens on a loopback host and is not published over https.
 * Anything else (HOST=0.0.0.0, an https PUBLIC_BASE_URL, a non-loopback public name) is a
 * sandbox others reach, whose loopback is not theirs to probe.
 */
export function sandboxLoopbackByDefault(deployment: {
  host?: string | undefined;
  publicBaseUrl?: string | undefined;
}): boolean {
  const host = (deployment.host ?? '127.0.0.1').replace(/^\[(.*)\]$/, '$1');
  if (!isLoopbackHost(host)) return false;
  if (deployment.publicBaseUrl === undefined) return true;
  let base: URL;
  try {
    base = new URL(deployment.publicBaseUrl);
  } catch {
    return false;
  }
  return base.protocol === 'http:' && isLoopbackHost(base.hostname.replace(/^\[(.*)\]$/, '$1'));
}

function isLoopbackHost(host: string): boolean {
  return isLoopbackName(host) || (isIP(host) !== 0 && describeAddress(host).class === 'loopback');
}

/**
 * Whether an environment may deliver to an address. The spec relaxes exactly one thing for
 * sandbox, and only on a deployment that allows it (`sandboxLoopback`), loopback, so that a
 * developer can receive on their own machine: the loopback address itself (or IPv4-mapped, which
 * is the same socket), never loopback carried in a translation or tunnel prefix, which a NAT64
 * gateway or relay would reach on its own loopback. Private, link-local and metadata addresses
 * stay refused there too, since a sandbox credential is easy to get and must not become a way to
 * probe the server's own network.
 */
export function isAllowedAddress(
  verdict: AddressVerdict,
  environment: Environment,
  options: DestinationOptions = {},
): boolean {
  if (verdict.class === 'public') return true;
  return (
    environment === 'sandbox' &&
    options.sandboxLoopback !== false &&
    verdict.class === 'loopback' &&
    (verdict.embedded === undefined || verdict.embedded.form === 'mapped')
  );
}

const DESCRIPTION: Record<AddressClass, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'the unspecified address',
  cgnat: 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  documentation: 'a documentation address',
  benchmarking: 'a benchmarking address',
  reserved: 'a reserved address',
  invalid: 'not an IP address',
};

/** "a loopback address (127.0.0.0/8: loopback, RFC 1122)", naming the registry entry that decided. */
function predicate(verdict: AddressVerdict): string {
  const { entry, embedded } = verdict;
  const what = DESCRIPTION[verdict.class];
  if (!entry) return what;
  const where = `${entry.block}: ${entry.name}, ${entry.source}`;
  return embedded ? `${what} (${embedded.ipv4} carried in ${where})` : `${what} (${where})`;
}

/**
 * Why `ip` may not receive webhooks of `environment` ("a loopback address (…); live webhooks
 * must reach a public address"), or undefined when it may. Registration and every delivery
 * attempt apply this same rule.
 */
export function addressRefusal(
  ip: string,
  environment: Environment,
  options: DestinationOptions = {},
): string | undefined {
  return verdictRefusal(describeAddress(ip), environment, options);
}

/** What the deployment lets an environment's webhooks reach, as a refusal says it. */
function ruleOf(verdict: AddressVerdict, environment: Environment, options: DestinationOptions): string {
  if (environment === 'live') return 'live webhooks must reach a public address';
  if (options.sandboxLoopback === false) return "this deployment's sandbox webhooks must reach a public address";
  return verdict.class === 'loopback'
    ? 'sandbox webhooks may reach loopback only directly, not through a translation or tunnel prefix'
    : 'sandbox webhooks must reach a public or loopback address';
}

function verdictRefusal(
  verdict: AddressVerdict,
  environment: Environment,
  options: DestinationOptions,
): string | undefined {
  if (isAllowedAddress(verdict, environment, options)) return undefined;
  return `${predicate(verdict)}; ${ruleOf(verdict, environment, options)}`;
}

// RFC 6761 reserves these names for loopback, so they are judged without asking DNS.
const LOOPBACK_NAME: AddressVerdict = {
  class: 'loopback',
  entry: { block: 'localhost', name: 'loopback name', source: 'RFC 6761' },
};

function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The registration rules of PUT /api/partner/webhooks that need no network: syntax, scheme,
 * no credentials, and literal addresses. For a host name the caller resolves it and checks each
 * address with checkResolvedAddress; the dispatcher applies addressRefusal again to every address
 * it connects to, so a name re-pointed after registration (DNS rebinding) gains nothing.
 */
export function checkWebhookUrl(
  url: string,
  environment: Environment,
  options: DestinationOptions = {},
): WebhookUrlCheck {
  if (url.length > WEBHOOK_URL_MAX_LENGTH) return refuse(`url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`);
  // The WHATWG parser silently strips surrounding whitespace and tabs or newlines inside, so the
  // URL stored would not be the one sent: refuse them instead.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u0020\u007F]/.test(url)) return refuse('url must not contain spaces or control characters');
  if (!/^https?:\/\//.test(url)) return refuse('url must be an absolute http or https URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('url is not a valid URL');
  }
  // RFC 3986 §3.5: a fragment is never sent to the server, so the receiver could not see it.
  if (url.includes('#')) return refuse('url must not have a fragment (#...): it is never sent to the receiver');
  // Port 0 is "any free port" to a listener and reaches nothing as a destination.
  if (parsed.port === '0') return refuse('url must not name port 0: a port is 1 to 65535');
  if (environment === 'live' && parsed.protocol !== 'https:') return refuse('url must use https for live credentials');
  if (carriesUserinfo(url, parsed)) return refuse('url must not contain credentials');
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (hostname === '') return refuse('url must name a host');
  const literalIp = isIP(hostname) !== 0;
  const verdict = literalIp ? describeAddress(hostname) : isLoopbackName(hostname) ? LOOPBACK_NAME : undefined;
  const refusal = verdict && verdictRefusal(verdict, environment, options);
  if (refusal) return refuse(`url host ${parsed.hostname} is ${refusal}`);
  return { ok: true, href: parsed.href, hostname, literalIp };
}

/**
 * The rule for the addresses the caller resolved the URL's host name to (none: it does not
 * resolve). The refusal names neither the addresses nor their kind, and is the same whether the
 * name does not resolve or resolves inward: the server's resolver is not a lookup service, and its
 * view of internal names must not leak through registration.
 */
export function checkResolvedAddresses(
  hostname: string,
  addresses: readonly string[],
  environment: Environment,
  options: DestinationOptions = {},
): { ok: true } | ValidationFailure {
  const inward = addresses.some((ip) => addressRefusal(ip, environment, options) !== undefined);
  if (!inward && (addresses.length > 0 || environment === 'sandbox')) return { ok: true };
  const allowed =
    environment === 'sandbox' && options.sandboxLoopback !== false
      ? 'public or loopback addresses'
      : 'public addresses';
  return refuse(
    `url host ${hostname} must resolve, from this server, only to ${allowed}; ${environment} webhooks of this deployment reach nothing else`,
  );
}
