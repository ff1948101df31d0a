// The secrets a shared deployment must not run with (README "Deploying safely"). A deployment is
// shared when its PUBLIC_BASE_URL is https, the same signal that switches sandbox loopback
// webhooks off (server/domain/webhook-url.ts): there the operator token and the sandbox user's
// password guard the operator API and the sign-in page of a server others reach, so the start is
// refused rather than serving with a guessable one. A plain-http loopback server (`npm start` in
// a clone) keeps starting with them and is only warned about.

/** The shortest operator token a shared deployment accepts (32 characters, ~192 bits when random). */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/**
 * Operator tokens shown as examples in the README and the docs (compared case-insensitively):
 * a token copied from them is public knowledge, whatever its length. Keep in step with the
 * README's quick start (`ADMIN_TOKEN=change-me npm start`) and every `Bearer …` example.
 */
export const EXAMPLE_ADMIN_TOKENS: readonly string[] = [
  'change-me',
  'changeme',
  '…',
  '...',
  '<admin_token>',
  'admin_token',
  '3q…',
];

/** The sandbox sign-in user's documented password (README), public knowledge as well. */
export const DEFAULT_SANDBOX_PASSWORD = 'sandbox-password';

export interface DeploymentSecrets {
  publicBaseUrl: string | undefined;
  adminToken: string | undefined;
  /** The sandbox sign-in user's password; the server always seeds that user. */
  sandboxUserPassword: string;
}

/** Whether the deployment is published over https (PUBLIC_BASE_URL), i.e. reached by others. */
export const isSharedDeployment = (publicBaseUrl: string | undefined): boolean =>
  publicBaseUrl !== undefined && /^https:\/\//i.test(publicBaseUrl);

/**
 * What is wrong with the deployment's secrets, one sentence each naming the setting and what to
 * do; never the secret itself (the message goes to logs).
 */
export function weakSecrets(secrets: DeploymentSecrets): string[] {
  const problems: string[] = [];
  const token = secrets.adminToken;
  if (token !== undefined) {
    if (EXAMPLE_ADMIN_TOKENS.includes(token.toLowerCase()))
      problems.push(
        'ADMIN_TOKEN is an example value from the README; set a long random token (e.g. `openssl rand -base64 32`) or unset it to switch the operator API off',
      );
    else if (token.length < MIN_ADMIN_TOKEN_LENGTH)
      problems.push(
        `ADMIN_TOKEN is shorter than ${MIN_ADMIN_TOKEN_LENGTH} characters; set a long random token (e.g. \`openssl rand -base64 32\`) or unset it to switch the operator API off`,
      );
  }
  if (secrets.sandboxUserPassword === DEFAULT_SANDBOX_PASSWORD)
    problems.push(
      'SANDBOX_USER_PASSWORD is unset or the documented default; set a secret password for the sandbox sign-in user',
    );
  return problems;
}

/**
 * Refuses a shared deployment's weak secrets: an Error whose message is one line naming every
 * setting to fix (the process entries print it to stderr and exit 1). On any other deployment the
 * problems are returned, for a warning.
 */
export function checkDeploymentSecrets(secrets: DeploymentSecrets): string[] {
  const problems = weakSecrets(secrets);
  if (problems.length > 0 && isSharedDeployment(secrets.publicBaseUrl))
    throw new Error(`Refusing to start: PUBLIC_BASE_URL is https (a shared deployment), but ${problems.join('; ')}.`);
  return problems;
}
