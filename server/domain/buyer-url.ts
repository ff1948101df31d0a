/**
 * Where a hosted checkout may send the buyer afterwards (`return_url`, `cancel_url` of
 * CheckoutSessionRequest): an `https` URL with a host, or, for a sandbox session, `http` on a
 * loopback host (a partner developing on its own machine). Every other scheme (`javascript:`,
 * `data:`, `file:`, plain `http` elsewhere) would turn the service's redirect into the partner's
 * or an attacker's script, a downgrade or a local file, so it is refused when the session is
 * created and never redirected to afterwards.
 */
import { carriesUserinfo } from './url-userinfo.ts';

export type BuyerUrlEnvironment = 'sandbox' | 'live';

const LOOPBACK_IPV4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** `localhost`, 127.0.0.0/8 or `[::1]`, as the WHATWG URL parser writes a hostname. */
function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || LOOPBACK_IPV4.test(hostname);
}

// A host name as the WHATWG parser writes one (lowercase, an IDN in its `xn--` form): labels of
// letters, digits and inner hyphens, at most 63 each (RFC 1035 §2.3.1, RFC 1123 §2.1); or an IP
// literal. The parser keeps characters no name can have (`p.example.net;sandbox`): such a host
// could be neither reached nor named in the hosted page's Content-Security-Policy (`form-action`).
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/;

function isHostName(hostname: string): boolean {
  if (IPV6_LITERAL.test(hostname)) return true;
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return name.length > 0 && name.length <= 253 && name.split('.').every((label) => LABEL.test(label));
}

/** Why `url` may not be a buyer's return or cancel address, or undefined when it may. */
export function buyerUrlProblem(url: string, environment: BuyerUrlEnvironment): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (carriesUserinfo(url, parsed))
    return 'must not carry user information (user@ or user:password@ before the host): the buyer would be sent to the host after the @';
  if (parsed.protocol === 'https:') {
    if (!parsed.hostname) return 'must name a host';
    return isHostName(parsed.hostname) ? undefined : 'must name a host name or an IP address';
  }
  if (parsed.protocol === 'http:' && isLoopbackHostname(parsed.hostname)) {
    return environment === 'sandbox'
      ? undefined
      : 'must be https: http is accepted on loopback hosts with sandbox credentials only';
  }
  return 'must be an https URL (or http on a loopback host with a sandbox credential)';
}
