// The RDAP client as the server configures it: off unless asked for (the reference machine and
// the tests have no internet), with the bootstrap file shipped in this folder unless another is named.
import { loadBootstrap, SHIPPED_BOOTSTRAP_FILE } from './bootstrap.ts';
import { createRdapClient } from './client.ts';
import type { RegistrationSource } from './source.ts';

export { createRdapClient, type RdapClientOptions } from './client.ts';
export { baseUrlsFor, loadBootstrap, parseBootstrap, SHIPPED_BOOTSTRAP_FILE, type DnsBootstrap } from './bootstrap.ts';
export { RegistrationLookupError, type RegistrationSource } from './source.ts';
export { sandboxRegistrations } from './sandbox.ts';

export interface RdapSettings {
  enabled: boolean;
  /** A bootstrap file in IANA's dns.json format; default: the shipped subset. */
  bootstrapFile?: string | undefined;
  timeoutMs?: number | undefined;
}

/** The RDAP client, or undefined when lookups beyond the sandbox are off. */
export function rdapFromConfig(settings: RdapSettings): RegistrationSource | undefined {
  if (!settings.enabled) return undefined;
  return createRdapClient({
    bootstrap: loadBootstrap(settings.bootstrapFile ?? SHIPPED_BOOTSTRAP_FILE),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
  });
}
