// The reference server the suite starts when it is given no --base-url. In this repository it
// is next door (server/, run from source); installed, it is the @domain-sales/sandbox package,
// an optional peer of @domain-sales/conformance: a pipeline checking its own deployment needs
// neither the server nor its native SQLite module. The specifier is computed, so neither tsc
// nor a bundler follows it into the server's sources: the kit is built and shipped without them.
import { ConfigError } from './context.ts';

/** The part of the sandbox's config.ts and embedded.ts the suite uses (structural, see above). */
export interface SandboxConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  adminToken: string | undefined;
  masterKey: Buffer;
  sandboxInventorySize: number;
  validateResponses: boolean;
  publicBaseUrl: string | undefined;
  webhookBackoffScale: number;
  webhookTimeoutMs: number;
  sandboxUser?: { email: string; password: string };
}

export interface Sandbox {
  DEFAULT_SANDBOX_USER: { readonly email: string; readonly password: string };
  startServer(options: {
    config: SandboxConfig;
    log?: (line: string) => void;
    faults?: ReadonlySet<string>;
  }): Promise<{ url: string; stop(): Promise<void>; metrics?: { registry: { metrics(): Promise<string> } } }>;
}

const FROM_SOURCE = import.meta.url.endsWith('.ts');

async function load<T>(source: string, installed: string): Promise<T> {
  const specifier = FROM_SOURCE ? source : installed;
  try {
    return (await import(specifier)) as T;
  } catch (err) {
    if (
      !FROM_SOURCE &&
      (err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' &&
      String((err as Error).message).includes('@domain-sales/sandbox')
    ) {
      throw new ConfigError(
        'without --base-url the suite starts the reference server, which is the @domain-sales/sandbox package: install it next to the kit (npm i -D @domain-sales/sandbox) or pass --base-url of a running deployment',
      );
    }
    throw err;
  }
}

export async function loadSandbox(): Promise<Sandbox> {
  const [embedded, config] = await Promise.all([
    load<Pick<Sandbox, 'startServer'>>('../server/embedded.ts', '@domain-sales/sandbox/embedded'),
    load<Pick<Sandbox, 'DEFAULT_SANDBOX_USER'>>('../server/config.ts', '@domain-sales/sandbox/config'),
  ]);
  return { startServer: embedded.startServer, DEFAULT_SANDBOX_USER: config.DEFAULT_SANDBOX_USER };
}
