// A real RDAP client: RFC 9224 bootstrap to find the registry's service, RFC 9082 query path,
// RFC 7480 HTTP usage, RFC 9083 answer. Only `domain` lookups, which is all WHOIS needs.
import { baseUrlsFor, type DnsBootstrap } from './bootstrap.ts';
import { RegistrationLookupError, type RegistrationSource } from './source.ts';
import { RdapFormatError, toWhoisResult } from './to-whois.ts';

export interface RdapClientOptions {
  bootstrap: DnsBootstrap;
  /** Per-request budget, ms (default 5000). */
  timeoutMs?: number;
  /** Largest answer read, bytes (default 1 MiB): a registry's domain object is a few KiB. */
  maxBytes?: number;
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_BYTES = 1 << 20;

/** Reads at most `max` bytes of the body; undefined when it is longer. */
async function boundedText(res: Response, max: number): Promise<string | undefined> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) return undefined;
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function createRdapClient(options: RdapClientOptions): RegistrationSource {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;

  return {
    async lookup(domain) {
      const bases = baseUrlsFor(options.bootstrap, domain);
      // No RDAP service for the TLD: this source knows nothing of the name (port-43 WHOIS is not spoken here).
      if (!bases || bases.length === 0) return undefined;
      const base = bases[0] as string;
      const service = new URL(base).host;
      // RFC 9082 §3.1.3: <base>domain/<name>; the base URL ends with '/' (RFC 9224 §4), but not always in practice.
      const url = `${base.endsWith('/') ? base : `${base}/`}domain/${encodeURIComponent(domain)}`;
      let res: Response;
      try {
        // RFC 7480 §4.2: a client follows redirects (fetch does, at most 20).
        res = await doFetch(url, {
          headers: { accept: 'application/rdap+json, application/json;q=0.9' },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (e) {
        const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
        throw new RegistrationLookupError(
          `The RDAP service ${service} ${timedOut ? `did not answer within ${timeoutMs} ms` : 'could not be reached'}; try again later`,
        );
      }
      if (res.status === 404) {
        await res.body?.cancel();
        return undefined;
      }
      if (res.status !== 200) {
        await res.body?.cancel();
        throw new RegistrationLookupError(
          `The RDAP service ${service} answered HTTP ${res.status} for ${domain}; try again later`,
        );
      }
      const text = await boundedText(res, maxBytes).catch(() => undefined);
      if (text === undefined)
        throw new RegistrationLookupError(
          `The RDAP service ${service} sent an answer that could not be read within ${maxBytes} bytes`,
        );
      let json: unknown;
      try {
        json = JSON.parse(text) as unknown;
      } catch {
        throw new RegistrationLookupError(`The RDAP service ${service} answered something that is not JSON`);
      }
      try {
        const result = toWhoisResult(json);
        if (result.domain !== domain) throw new RdapFormatError(`it describes ${result.domain}, not ${domain}`);
        return result;
      } catch (e) {
        if (e instanceof RdapFormatError)
          throw new RegistrationLookupError(
            `The RDAP service ${service} answered a malformed domain object: ${e.message}`,
          );
        throw e;
      }
    },
  };
}
