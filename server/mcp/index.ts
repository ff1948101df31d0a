// The MCP surface: POST /mcp (Streamable HTTP, stateless), GET and DELETE /mcp (no stream, no
// session: 405 to MCP clients), the manifest and the Server Card. Tools answer through the same PublicReads as REST and batch.
import type { Request, Response } from 'express';
import type { HandlerMap, PublicDeps } from '../public-api/context.ts';
import type { PublicReads } from '../public-api/reads-service.ts';
import { mcpManifest, mcpServerCard, SERVER_CARD_MEDIA_TYPE } from './discovery.ts';
import { deleteSession, getStream, mcpPostHandler, type McpEndpointOptions } from './http.ts';

/** Where GET /mcp sends a request that is not an MCP client's (the operation's 303 Location). */
export const MCP_GUIDE_PATH = '/docs/mcp';

export type { McpEndpointOptions };

export function mcpHandlers(deps: PublicDeps, reads: PublicReads, options: McpEndpointOptions = {}): HandlerMap {
  const manifest = (req: Request, res: Response) => void res.json(mcpManifest(deps.baseUrl(req)));
  // res.json would set application/json; the card has its own media type.
  const card = (req: Request, res: Response) => {
    res.type(SERVER_CARD_MEDIA_TYPE);
    res.json(mcpServerCard(deps.baseUrl(req)));
  };
  return {
    postMcpMessage: mcpPostHandler(deps, reads, options),
    getMcpStream: getStream(MCP_GUIDE_PATH),
    deleteMcpSession: deleteSession(),
    getMcpManifest: manifest,
    getMcpManifestAlias: manifest,
    getMcpServerCard: card,
    getMcpServerCardWellKnown: card,
  };
}
