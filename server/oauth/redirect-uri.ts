// Redirect URIs: which may be registered, and whether a requested one is registered. The match
// is an exact string comparison (OAuth 2.1 §2.3.1, RFC 9700 §4.1.3), with the one exception
// RFC 8252 §7.3 requires: on a loopback redirect any port matches, as native apps pick a free
// port at run time.
import { carriesUserinfo } from '../domain/url-userinfo.ts';

const LOOPBACK = /^(https?):\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::(\d{1,5}))?([/?][^#]*)?$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes no client may be sent to, whatever it registers. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
  'ftp:',
  'ws:',
  'wss:',
]);
export const MAX_REDIRECT_URI_LENGTH = 2000;

export const isLoopbackHost = (hostname: string) => LOOPBACK_HOSTS.has(hostname);

/**
 * Whether an authorization error may send the browser to `uri` automatically, before the user
 * has signed in (RFC 9700 §4.11.2, the authorization server as open redirector). Anyone can
 * register a client with any https redirect URI, so such a URI is not trusted for that: a
 * redirect to it would take the browser from this origin to any site at once. A loopback `http`
 * URI or a private-use scheme stays on the user's own device (a native app, RFC 8252), so a
 * redirect there sends nobody elsewhere.
 */
export function errorRedirectsAutomatically(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return false;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname);
  return !FORBIDDEN_SCHEMES.has(url.protocol);
}

/** Why `uri` cannot be registered as a redirect URI, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  if ([...uri].length > MAX_REDIRECT_URI_LENGTH)
    return `redirect URIs are at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `not an absolute URI: ${uri}`;
  }
  if (uri.includes('#')) return `redirect URIs must not have a fragment: ${uri}`;
  if (carriesUserinfo(uri, url)) return `redirect URIs must not carry user credentials: ${uri}`;
  // Port 0 asks the operating system for any free port: no listener can be reached at it.
  if (url.port === '0') return `redirect URIs must not name port 0 (a port is 1 to 65535): ${uri}`;
  if (url.protocol === 'https:') return url.hostname ? undefined : `https redirect URIs need a host: ${uri}`;
  if (url.protocol === 'http:') {
    return isLoopbackHost(url.hostname) ? undefined : `http redirect URIs are allowed only on loopback hosts: ${uri}`;
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol))
    return `the ${url.protocol.slice(0, -1)} scheme is not allowed for redirect URIs: ${uri}`;
  // RFC 8252 §7.1: a private-use scheme must be a reverse domain name the app controls.
  if (!url.protocol.slice(0, -1).includes('.')) {
    return `redirect URIs must be https, http on a loopback host, or a private-use scheme in reverse-domain form (com.example.app:/callback): ${uri}`;
  }
  return undefined;
}

/** TCP ports are 1 to 65535: five digits can spell more, and 0 (any free port) is no port to send a browser to. */
const MIN_PORT = 1;
const MAX_PORT = 65535;

/** Splits a loopback URI into what must match exactly (everything) and what may differ (the port). */
function loopbackParts(uri: string): { scheme: string; host: string; rest: string } | undefined {
  const m = LOOPBACK.exec(uri);
  if (!m || (m[3] !== undefined && (Number(m[3]) < MIN_PORT || Number(m[3]) > MAX_PORT))) return undefined;
  return { scheme: m[1] ?? '', host: m[2] ?? '', rest: m[4] ?? '' };
}

/** Whether `requested` is one of `registered`: exactly, or on a loopback host up to the port. */
export function isRegisteredRedirectUri(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const asked = loopbackParts(requested);
  if (!asked) return false;
  return registered.some((uri) => {
    const known = loopbackParts(uri);
    return (
      known !== undefined && known.scheme === asked.scheme && known.host === asked.host && known.rest === asked.rest
    );
  });
}

/** `uri` with parameters added to its query (an existing query is kept, RFC 6749 §3.1.2). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}
