// Dynamic client registration (RFC 7591): checking the metadata a client sends and filling in
// the defaults. Pure: the handler stores and answers what this returns.
import type { components } from '../../generated/public.d.ts';
import { hasUnshowable } from './client-name.ts';
import { redirectUriProblem } from './redirect-uri.ts';
import { DEFAULT_SCOPE, formatScope, MAX_SCOPE_LENGTH, parseScope } from './scopes.ts';

export type ClientMetadata = Omit<
  components['schemas']['ClientRegistrationResponse'],
  'client_id' | 'client_id_issued_at'
>;
export type RegistrationError = components['schemas']['ClientRegistrationError'];

export type CheckedMetadata = { ok: true; metadata: ClientMetadata } | { ok: false; error: RegistrationError };

const MAX_REDIRECT_URIS = 10;
const MAX_TEXT = 200;
const MAX_URL = 2000;
const MAX_CONTACTS = 10;
const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

/**
 * A lone UTF-16 surrogate (`"\ud800"` in JSON): with the `u` flag a well-formed pair is one code
 * point, so only an unpaired half matches. Such a string is not Unicode text: no page can show
 * it (a browser draws U+FFFD), so the name shown would not be the one registered.
 */
const LONE_SURROGATE = /\p{Cs}/u;

/** Lengths count Unicode code points, as JSON Schema's maxLength does (the contract states them so). */
const length = (s: string) => [...s].length;

const metadataError = (description: string): CheckedMetadata => ({
  ok: false,
  error: { error: 'invalid_client_metadata', error_description: description },
});
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

function webUrl(value: string): boolean {
  if (length(value) > MAX_URL) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Checks a registration body member by member; unknown members are ignored (RFC 7591 §2). */
export function checkClientMetadata(body: unknown): CheckedMetadata {
  if (!isObject(body)) return metadataError('The registration body must be a JSON object of client metadata');

  const uris = body.redirect_uris;
  if (uris === undefined)
    return metadataError('redirect_uris is required: the URIs the authorization response may be sent to');
  if (!isStringArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    return metadataError(`redirect_uris must be an array of 1 to ${MAX_REDIRECT_URIS} strings`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return { ok: false, error: { error: 'invalid_redirect_uri', error_description: problem } };
  }

  const name = body.client_name;
  if (typeof name !== 'string' || name.trim().length === 0 || length(name) > MAX_TEXT) {
    return metadataError(
      `client_name is required: a string of 1 to ${MAX_TEXT} characters shown to the user on the consent page`,
    );
  }
  if (LONE_SURROGATE.test(name)) {
    return metadataError(
      'client_name must be well-formed Unicode text: it has a lone surrogate (such as \\ud800) that no page can show',
    );
  }
  if (hasUnshowable(name)) {
    return metadataError(
      'client_name must not contain control characters or bidirectional formatting characters (U+202E and the like): the consent page must show the name as registered',
    );
  }

  const auth = body.token_endpoint_auth_method ?? 'none';
  if (auth !== 'none')
    return metadataError('token_endpoint_auth_method must be "none"; this server registers public clients only');

  const grants = body.grant_types ?? [...GRANT_TYPES];
  if (
    !isStringArray(grants) ||
    grants.length === 0 ||
    new Set(grants).size !== grants.length ||
    grants.some((g) => !(GRANT_TYPES as readonly string[]).includes(g))
  ) {
    return metadataError('grant_types may only contain "authorization_code" and "refresh_token", each once');
  }
  if (!grants.includes('authorization_code'))
    return metadataError('grant_types must include "authorization_code", the only way to obtain tokens here');

  const responses = body.response_types ?? ['code'];
  if (!isStringArray(responses) || responses.length !== 1 || responses[0] !== 'code')
    return metadataError('response_types may only contain "code", once');

  let scope: string = DEFAULT_SCOPE;
  if (body.scope !== undefined) {
    const parsed =
      typeof body.scope === 'string' && body.scope.length <= MAX_SCOPE_LENGTH ? parseScope(body.scope) : undefined;
    if (!parsed?.ok)
      return metadataError(
        `scope must be space-separated values of "pricing:read" and "domains:manage", at most ${MAX_SCOPE_LENGTH} characters`,
      );
    scope = formatScope(parsed.scopes);
  }

  const metadata: ClientMetadata = {
    client_name: name,
    redirect_uris: [...uris],
    grant_types: GRANT_TYPES.filter((g) => grants.includes(g)),
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope,
  };
  for (const member of ['client_uri', 'logo_uri'] as const) {
    const value = body[member];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !webUrl(value))
      return metadataError(`${member} must be an absolute http or https URL of at most ${MAX_URL} characters`);
    metadata[member] = value;
  }
  if (body.contacts !== undefined) {
    const contacts = body.contacts;
    if (
      !isStringArray(contacts) ||
      contacts.length > MAX_CONTACTS ||
      contacts.some((c) => c.length === 0 || length(c) > 254)
    ) {
      return metadataError(`contacts must be an array of at most ${MAX_CONTACTS} addresses`);
    }
    metadata.contacts = [...contacts];
  }
  for (const member of ['software_id', 'software_version'] as const) {
    const value = body[member];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length === 0 || length(value) > MAX_TEXT)
      return metadataError(`${member} must be a string of 1 to ${MAX_TEXT} characters`);
    metadata[member] = value;
  }
  return { ok: true, metadata };
}

/** Reads a stored client's metadata back (written by the registration handler from checkClientMetadata). */
export const readClientMetadata = (json: string) => JSON.parse(json) as ClientMetadata;
