// Loads spec/vectors/signing.json, the language-neutral known answers.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface CanonicalQueryVector {
  name: string;
  query: string;
  canonical: string;
}
export interface InvalidQueryVector {
  name: string;
  query: string;
}
export interface SignatureVector {
  name: string;
  secret: string;
  method: string;
  path: string;
  query: string;
  timestamp: string;
  nonce: string;
  body: string;
  canonical_string: string;
  signature: string;
}
export interface WebhookVector {
  name: string;
  secret: string;
  body: string;
  signature: string;
}
export interface SigningVectors {
  description?: string;
  canonical_query: CanonicalQueryVector[];
  invalid_query?: InvalidQueryVector[];
  signatures: SignatureVector[];
  webhooks: WebhookVector[];
}

export const VECTORS_PATH = fileURLToPath(new URL('../../spec/vectors/signing.json', import.meta.url));
export const VERIFY_SCRIPT_PATH = fileURLToPath(new URL('../../spec/vectors/verify_vectors.py', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function loadVectors(): SigningVectors {
  return JSON.parse(readFileSync(VECTORS_PATH, 'utf8')) as SigningVectors;
}
