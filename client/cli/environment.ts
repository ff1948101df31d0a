// Where the CLI's settings come from: flags first, then the environment, then the default of the
// reference server (the partner document's first `servers` entry, http://127.0.0.1:8080).
import { UsageError } from './usage.ts';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export interface PartnerCredential {
  keyId: string;
  secret: string;
}

type Env = Record<string, string | undefined>;

/** The deployment's base address, without a trailing slash; refuses anything that is not http(s). */
export function baseUrlFrom(flag: string | undefined, env: Env): string {
  const raw = flag ?? env.SERVICE_BASE_URL ?? DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(
      `the base URL ${JSON.stringify(raw)} is not a URL (give --base-url or SERVICE_BASE_URL, e.g. ${DEFAULT_BASE_URL})`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`the base URL must be http:// or https://, not ${url.protocol}`);
  if (url.search || url.hash) throw new UsageError('the base URL must not carry a query or a fragment');
  return url.href.replace(/\/+$/, '');
}

/** SERVICE_KEY_ID and SERVICE_SECRET; a missing one is a usage error that says which. */
export function credentialFrom(env: Env): PartnerCredential {
  const keyId = env.SERVICE_KEY_ID ?? '';
  const secret = env.SERVICE_SECRET ?? '';
  const missing = [keyId ? undefined : 'SERVICE_KEY_ID', secret ? undefined : 'SERVICE_SECRET'].filter(Boolean);
  if (missing.length > 0)
    throw new UsageError(
      `set ${missing.join(' and ')} in the environment (the partner credential: pk_… key id and sk_… secret)`,
    );
  if (secret.startsWith('pk_'))
    throw new UsageError('SERVICE_SECRET holds a key id (pk_…): it must be the secret (sk_…)');
  return { keyId, secret };
}

/** The webhook secret the partner registered with PUT /api/partner/webhooks. */
export function webhookSecretFrom(flag: string | undefined, env: Env, command: string): string {
  const secret = flag ?? env.WEBHOOK_SECRET ?? '';
  if (!secret)
    throw new UsageError(`${command}: give the webhook secret you registered (--secret S or WEBHOOK_SECRET)`);
  return secret;
}
