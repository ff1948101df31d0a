// Every 401 of the partner surface carries `WWW-Authenticate` (RFC 9110 §11.6.1: a 401 MUST send
// a challenge), naming the signing scheme of the partner document (`x-signing`). The challenge is
// the one the document declares on its 401 responses, read from there.
import type { ErrorRequestHandler } from 'express';
import { resolveRef, type ApiContract } from '../contract/index.ts';
import { toApiError } from './errors.ts';

/** The `WWW-Authenticate` value the document's 401 responses declare (their header's one `enum` value); throws when they disagree. */
export function signingChallengeOf(contract: ApiContract): string {
  const challenges = new Set<string>();
  for (const operation of contract.operations) {
    const response = operation.responses['401'];
    if (!response) continue;
    const headers = resolveRef(contract.document, response.headers ?? {});
    const header = resolveRef(contract.document, headers['WWW-Authenticate']);
    const values = (resolveRef(contract.document, header.schema ?? {}) as { enum?: unknown }).enum;
    if (!Array.isArray(values) || values.length !== 1 || typeof values[0] !== 'string')
      throw new Error(`${operation.operationId}: its 401 must declare WWW-Authenticate with one enum value`);
    challenges.add(values[0]);
  }
  const [challenge, ...others] = [...challenges];
  if (challenge === undefined || others.length > 0)
    throw new Error(
      `the ${contract.api} document's 401 responses must declare one challenge, found ${challenges.size}`,
    );
  return challenge;
}

/** Adds the challenge to whatever 401 the steps before it raised; the error handler answers it. */
export function challengeOnUnauthorized(challenge: string): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (toApiError(err).status === 401 && !res.headersSent) res.setHeader('WWW-Authenticate', challenge);
    next(err);
  };
}
