// POST /api/oauth/register (registerOAuthClient): RFC 7591 dynamic registration, no approval
// step, public clients only. Errors answer the RFC 7591 shape, never cached.
import type { RequestHandler } from 'express';
import { newId } from '../ids.ts';
import type { PublicDeps } from '../public-api/context.ts';
import { checkClientMetadata } from './client-metadata.ts';
import { noStore } from './token-endpoint.ts';

export function registrationEndpoint(deps: PublicDeps): RequestHandler {
  return async (req, res) => {
    noStore(res);
    // A body the JSON parser left as bytes (another content type) is not client metadata.
    const body: unknown = Buffer.isBuffer(req.body) ? undefined : req.body;
    const checked = checkClientMetadata(body);
    if (!checked.ok) {
      res.status(400).json(checked.error);
      return;
    }
    const now = deps.clock.now();
    const clientId = newId('cli');
    await deps.store.oauth.insertClient({
      client_id: clientId,
      metadata: JSON.stringify(checked.metadata),
      created_at: now,
    });
    res.status(201).json({ client_id: clientId, client_id_issued_at: Math.floor(now / 1000), ...checked.metadata });
  };
}
