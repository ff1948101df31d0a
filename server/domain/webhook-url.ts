import { isIP } from 'node:net';
import { classifyAddress, type AddressClass } from './address-class.ts';
import type { Environment } from './environment.ts';

export { classifyAddress, type AddressClass } from './address-class.ts';

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

/**
 * Which address classes an environment may deliver to. The spec relaxes exactly one thing for
 * sandbox, loopback, so that a developer can receive on their own machine; private, link-local
 * and metadata addresses stay refused there too, since a sandbox credential is easy to get and
 * must not become a way to probe the server's own network.
 */
export function isAllowedAddressClass(cls: AddressClass, environment: Environment): boolean {
  return cls === 'public' || (cls === 'loopback' && environment === 'sandbox');
}

const DESCRIPTION: Record<AddressClass, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'the unspecified address',
  cgnat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  invalid: 'not an IP address',
};

function addressRefusal(subject: string, cls: AddressClass, environment: Environment): ValidationFailure {
  const allowed = environment === 'sandbox' ? 'public or loopback' : 'public';
  return refuse(`${subject} ${DESCRIPTION[cls]}; ${environment} webhooks must reach a ${allowed} address`);
}

// RFC 6761 reserves these names for loopback, so they are judged without asking DNS.
function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The registration rules of PUT /api/partner/webhooks that need no network: syntax, scheme,
 * no credentials, and literal addresses. For a host name the caller resolves it and checks each
 * address with checkResolvedAddress (and, to defeat DNS rebinding, the address actually
 * connected to at delivery time).
 */
export function checkWebhookUrl(url: string, environment: Environment): WebhookUrlCheck {
  if (url.length > WEBHOOK_URL_MAX_LENGTH) return refuse(`url must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`);
  // The WHATWG parser silently strips surrounding whitespace and tabs or newlines inside, so the
  // URL stored would not be the one sent: refuse them instead.
  if (/[\u0000-\u0020\u007F]/.test(url)) return refuse('url must not contain spaces or control characters');
  if (!/^https?:\/\//.test(url)) return refuse('url must be an absolute http or https URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('url is not a valid URL');
  }
  if (environment === 'live' && parsed.protocol !== 'https:') return refuse('url must use https for live credentials');
  // Checked on the raw authority too: the parser drops an empty user ("https://@host/").
  const authority = url.slice(url.indexOf('//') + 2).split(/[/?#\\]/, 1)[0] ?? '';
  if (parsed.username !== '' || parsed.password !== '' || authority.includes('@')) {
    return refuse('url must not contain credentials');
  }
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (hostname === '') return refuse('url must name a host');
  const literalIp = isIP(hostname) !== 0;
  const cls: AddressClass | undefined = literalIp ? classifyAddress(hostname) : isLoopbackName(hostname) ? 'loopback' : undefined;
  if (cls !== undefined && !isAllowedAddressClass(cls, environment)) {
    return addressRefusal(`url host ${parsed.hostname} is`, cls, environment);
  }
  return { ok: true, href: parsed.href, hostname, literalIp };
}

/** The rule for an address the caller resolved the URL's host name to. */
export function checkResolvedAddress(ip: string, environment: Environment): { ok: true } | ValidationFailure {
  const cls = classifyAddress(ip);
  return isAllowedAddressClass(cls, environment) ? { ok: true } : addressRefusal(`url resolves to ${ip},`, cls, environment);
}
