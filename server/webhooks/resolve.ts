// How webhook host names become addresses. Registration and every delivery attempt ask the same
// resolver, so tests (and the DNS-rebinding drill) can inject one that changes its answer.
import { lookup } from 'node:dns/promises';

/** Resolves a host name to all of its addresses; rejects (or answers none) when it does not resolve. */
export type Resolve = (hostname: string) => Promise<string[]>;

export const systemResolve: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
