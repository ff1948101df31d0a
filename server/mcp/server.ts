// One McpServer per HTTP request (the endpoint is stateless), carrying the four tools for the
// request's viewer. The SDK serves both protocol eras from this one definition.
import { McpServer, type CallToolResult, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import { MCP_TOOLS, type ToolContext, type ToolOutcome } from './tools.ts';

export const SERVER_INFO = { name: 'domain-sales', version: '1.0.0' } as const;
export const CAPABILITIES = { tools: { listChanged: false } } as const;
/** The protocol revisions served, newest first (the MCP-Protocol-Version parameter's enum). */
export const PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25'] as const;

const INSTRUCTIONS =
  'Domain availability, WHOIS/RDAP, TLD prices and TLD registration requirements. No sign-in is needed; ' +
  'a bearer token with pricing:read only unmasks the prices search_domain returns.';

/**
 * Advertises `schema` in tools/list but lets every argument through to the tool, which checks
 * it itself: the SDK would answer bad arguments with a bare text error, while the contract
 * wants the `Error` body (validation_error with details) in `structuredContent`.
 */
function advertised(schema: z.ZodType): StandardSchemaWithJSON {
  const standard = schema['~standard'];
  return {
    '~standard': {
      version: 1,
      vendor: standard.vendor,
      validate: (value: unknown) => ({ value }),
      jsonSchema: standard.jsonSchema,
    },
  };
}

export function toCallToolResult(outcome: ToolOutcome): CallToolResult {
  if (outcome.ok) {
    return {
      content: [
        { type: 'text', text: outcome.text },
        { type: 'text', text: JSON.stringify(outcome.body) },
      ],
      structuredContent: outcome.body,
      isError: false,
    };
  }
  return {
    content: [{ type: 'text', text: `${outcome.error.code}: ${outcome.error.message}` }],
    structuredContent: outcome.error,
    isError: true,
  };
}

export function buildMcpServer(ctx: ToolContext): McpServer {
  const server = new McpServer(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS, supportedProtocolVersions: [...PROTOCOL_VERSIONS] });
  for (const tool of MCP_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: advertised(tool.input),
        outputSchema: tool.output,
        annotations: tool.annotations,
      },
      async (args: unknown) => toCallToolResult(await tool.call(ctx, args)),
    );
  }
  return server;
}
