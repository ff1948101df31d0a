// Which `Host` a request may name, and the base of every absolute URL the server hands out
// (OAuth issuer, checkout, referral and progress links, document links, redirects).
//
// The rule is each document's "Hosts" paragraph (info.description) and the `misdirected_request`
// row of ErrorCode: with PUBLIC_BASE_URL every absolute URL is built from it and `Host` is never
// read; without it, the server answers only for loopback names and the address it was reached
// on, so a name an attacker controls (DNS rebinding, a forged `Host`) is refused with 421 instead
// of being echoed into redirects, issuers and links.
import { isIP } from 'node:net';
import type { Request, RequestHandler } from 'express';
import { classifyAddress } from '../domain/address-class.ts';
import { ApiError } from './errors.ts';
import { targetAuthority } from './request-target.ts';

/** PUBLIC_BASE_URL as every absolute URL is built on it: without trailing slashes. The one home of that rule. */
export function publicBaseUrlOf(configured: string | undefined): string | undefined {
  return configured ? configured.replace(/\/+$/, '') : undefined;
}

export interface HostTrustOptions {
  /** PUBLIC_BASE_URL; when set, the only base (its trailing slashes are dropped). */
  publicBaseUrl?: string | undefined;
  /** The HOST the server listens on (a name or an address; a wildcard adds nothing). */
  listenHost?: string | undefined;
}

export interface HostTrust {
  /** Refuses a request whose `Host` is not trusted (421 `misdirected_request`). */
  middleware: RequestHandler;
  /** The base URL (`scheme://host[:port]`, no trailing slash) of absolute URLs for a request that passed the middleware. */
  baseUrl(req: Request): string;
  /**
   * The deployment's own address, never read from `Host`: PUBLIC_BASE_URL, else the address and
   * port the connection arrived at (the listen address). What the developer docs put into their
   * snippets, so a copied command names this deployment whatever name the reader used.
   */
  listenBaseUrl(req: Request): string;
}

// A Host header is `host[:port]` (RFC 9110 §7.2): a registered name or an IP literal, nothing
// else. Anything richer (userinfo, paths, spaces) is refused before it is looked at.
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)(?::(\d{1,5}))?$/;

/** Host verdicts kept (oldest dropped first). */
const HOST_VERDICTS_KEPT = 1000;

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

/** The host part of a Host header value, lowercased and without brackets; undefined when malformed. */
export function hostOfHeader(value: string): string | undefined {
  const match = HOST_HEADER.exec(value.toLowerCase());
  if (!match) return undefined;
  const port = match[2];
  // Port 0 names no listener (RFC 9110 §4.2.1 ports are 1 to 65535), so no absolute URL may carry it.
  if (port !== undefined && (Number(port) > 65535 || Number(port) === 0)) return undefined;
  const host = match[1] as string;
  if (host.startsWith('[')) return host.slice(1, -1);
  // Every label of a name is 1 to 63 letters, digits and inner hyphens (RFC 1035 §2.3.1): an
  // empty label (`evil.example..localhost`) is no name, however it ends. A last label that is a
  // number makes an IPv4 shorthand (`127.1`, `0x7f.1`) that URL parsers rewrite into an address:
  // an address is accepted only in its dotted-decimal form.
  if (!host.split('.').every((label) => LABEL.test(label))) return undefined;
  return isIP(host) === 0 && NUMERIC.test(host.slice(host.lastIndexOf('.') + 1)) ? undefined : host;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const NUMERIC = /^(?:[0-9]+|0x[0-9a-f]*)$/;

/** An IPv4-mapped IPv6 socket address (`::ffff:10.0.0.5`) names the IPv4 host. */
function plainAddress(address: string | undefined): string | undefined {
  return address?.toLowerCase().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

/**
 * The trust rule without a public base URL: loopback names and addresses, the configured listen
 * host, and the very address the connection arrived at (so `HOST=0.0.0.0` serves its own
 * addresses without listing them). A name resolves to whatever its owner likes, so no other name
 * is trusted.
 */
export function isTrustedHost(host: string, listenHost: string | undefined, localAddress: string | undefined): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true; // RFC 6761 §6.3
  if (isIP(host) !== 0 && classifyAddress(host) === 'loopback') return true;
  const listen = listenHost?.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (listen !== undefined && !WILDCARDS.has(listen) && host === listen) return true;
  return isIP(host) !== 0 && host === plainAddress(localAddress);
}

/** `scheme://address:port` of the socket's own end: where the server was reached, whatever `Host` says. */
function socketBaseUrl(req: Request): string {
  const address = plainAddress(req.socket.localAddress) ?? '127.0.0.1';
  return `${req.protocol}://${isIP(address) === 6 ? `[${address}]` : address}:${req.socket.localPort ?? 80}`;
}

export function hostTrust(options: HostTrustOptions): HostTrust {
  const configured = publicBaseUrlOf(options.publicBaseUrl);
  // The verdict depends only on the header and the socket's own address, and nearly every request
  // sends one of a few Host values: each pair is judged once (parsing and classifying it cost
  // every request a few µs), in a bounded memo, so odd hosts cannot grow it without limit.
  const verdicts = new Map<string, boolean>();
  // HTTP/1.0 may omit Host; the answer's URLs then name the socket's own address.
  const trusted = (header: string | undefined, req: Request): boolean => {
    if (header === undefined) return true;
    const localAddress = req.socket.localAddress;
    const key = `${localAddress ?? ''}\u0000${header}`;
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      const host = hostOfHeader(header);
      verdict = host !== undefined && isTrustedHost(host, options.listenHost, localAddress);
      if (verdicts.size >= HOST_VERDICTS_KEPT) verdicts.delete(verdicts.keys().next().value as string);
      verdicts.set(key, verdict);
    }
    return verdict;
  };
  if (configured !== undefined) {
    // Behind a proxy `Host` may be any internal name: it is neither read nor checked.
    return { middleware: (_req, _res, next) => next(), baseUrl: () => configured, listenBaseUrl: () => configured };
  }
  return {
    middleware(req, _res, next) {
      // An absolute-form target names the authority too (RFC 9112 §3.2.2): it must be one this
      // server answers for as well, checked like a Host.
      const authority = targetAuthority(req);
      const host = req.headers.host;
      const header = authority !== undefined && trusted(host, req) ? authority : host;
      if (header === undefined || trusted(header, req)) return next();
      next(
        new ApiError(
          'misdirected_request',
          `This server does not answer for the host ${JSON.stringify(header.slice(0, 255))}: without PUBLIC_BASE_URL it answers only for loopback names and the address it listens on`,
        ),
      );
    },
    baseUrl(req) {
      // An absolute-form target's authority stands for the Host (RFC 9112 §3.2.2).
      const header = targetAuthority(req) ?? req.headers.host;
      if (header !== undefined) return `${req.protocol}://${header.toLowerCase()}`;
      return socketBaseUrl(req);
    },
    listenBaseUrl: socketBaseUrl,
  };
}
