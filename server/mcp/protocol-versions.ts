// The MCP protocol revisions this server serves, newest first: POST /mcp's
// `x-mcp-protocol-versions` in the public document, read from it so the spec stays the one place
// they are named (the MCP-Protocol-Version header's enum, the manifest and the Server Card follow).
import { Contract } from '../contract/index.ts';

const REVISION = /^\d{4}-\d{2}-\d{2}$/;

function servedRevisions(): readonly string[] {
  const listed = Contract.load().public.match('POST', '/mcp');
  const versions = listed.kind === 'found' ? listed.operation.object['x-mcp-protocol-versions'] : undefined;
  if (
    !Array.isArray(versions) ||
    versions.length === 0 ||
    !versions.every((v): v is string => typeof v === 'string' && REVISION.test(v))
  ) {
    throw new Error(
      'generated/public.openapi.json: POST /mcp has no x-mcp-protocol-versions list of YYYY-MM-DD revisions',
    );
  }
  return Object.freeze([...versions]);
}

export const PROTOCOL_VERSIONS: readonly string[] = servedRevisions();

/**
 * The revisions a request of the 2026 era (the per-request `_meta` envelope, no `initialize`)
 * can use: those from 2026-07-28 on, the ones `server/discover` lists.
 */
export const ENVELOPE_VERSIONS: readonly string[] = Object.freeze(PROTOCOL_VERSIONS.filter((v) => v >= '2026-07-28'));
