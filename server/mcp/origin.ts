// DNS-rebinding protection of the Streamable HTTP transport: a browser's `Origin` must be one
// this deployment trusts. Requests without `Origin` come from non-browser clients and pass.
// The request's own Host is deliberately not trusted: under DNS rebinding the attacker's page
// and the Host header name the same attacker host.

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The `scheme://host[:port]` form of a URL, or undefined when it is not an http(s) URL. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    return parsed.origin;
  } catch {
    return undefined;
  }
}

/**
 * True when `origin` is the deployment's own origin (of its public base URL), one of the
 * configured origins, or on a loopback host (a page on the user's own machine).
 */
export function originAllowed(origin: string, ownBaseUrl: string, configured: readonly string[]): boolean {
  const normalized = originOf(origin);
  if (!normalized || origin.replace(/\/$/, '') !== normalized) return false;
  if (normalized === originOf(ownBaseUrl)) return true;
  if (configured.some((allowed) => originOf(allowed) === normalized)) return true;
  return LOOPBACK_HOSTS.has(new URL(normalized).hostname);
}
