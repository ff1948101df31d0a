// One McpServer per HTTP request (the endpoint is stateless), carrying the four tools for the
// request's viewer. The SDK serves every revision listed in the spec, both eras, from this one
// definition.
import { McpServer, type CallToolResult, type StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import { PROTOCOL_VERSIONS } from './protocol-versions.ts';
import { MCP_TOOLS, type ToolContext, type ToolOutcome } from './tools.ts';

export { PROTOCOL_VERSIONS };
export const SERVER_INFO = { name: 'domain-sales', version: '1.0.0' } as const;
export const CAPABILITIES = { tools: { listChanged: false } } as const;

const INSTRUCTIONS =
  'Domain availability, WHOIS/RDAP, TLD prices and TLD registration requirements. No sign-in is needed; ' +
  'a bearer token with pricing:read only unmasks the prices search_domain returns.';

type JsonSchemaConverter = StandardSchemaWithJSON['~standard']['jsonSchema'];

/**
 * The tool schemas leave their dialect implicit (no `$schema`): 2025-11-25 and later read an
 * unmarked schema as JSON Schema 2020-12, which is what these are, while older SDK clients
 * (1.12, draft-07 validators) cannot compile a schema naming 2020-12 and then check nothing.
 * Every keyword used here means the same in both dialects.
 */
function withoutDialect(convert: JsonSchemaConverter): JsonSchemaConverter {
  const strip = (schema: Record<string, unknown>): Record<string, unknown> => {
    const { $schema: _dialect, ...rest } = schema;
    return rest;
  };
  return { input: (options) => strip(convert.input(options)), output: (options) => strip(convert.output(options)) };
}

/** A tool's input (`inputSchema`) or output (`outputSchema`) JSON Schema as tools/list gives it. */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return withoutDialect(schema['~standard'].jsonSchema)[io]({ target: 'draft-2020-12' });
}

/**
 * Advertises `schema` in tools/list but lets every argument through to the tool, which checks
 * it itself: the SDK would answer bad arguments with a bare text error, while the contract
 * wants the `Error` body (validation_error with details) in the result's `content`.
 */
function advertised(schema: z.ZodType): StandardSchemaWithJSON {
  const standard = schema['~standard'];
  return {
    '~standard': {
      version: 1,
      vendor: standard.vendor,
      validate: (value: unknown) => ({ value }),
      jsonSchema: withoutDialect(standard.jsonSchema),
    },
  };
}

/** `schema` as the tool's output: checked by the SDK as before, advertised without a dialect. */
function output(schema: z.ZodType): StandardSchemaWithJSON {
  const standard = schema['~standard'];
  return {
    '~standard': {
      version: 1,
      vendor: standard.vendor,
      validate: standard.validate,
      jsonSchema: withoutDialect(standard.jsonSchema),
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
  // No structuredContent: it would have to match the tool's outputSchema (MCP 2025-06-18 and
  // later), and SDK clients refuse the whole result when it does not. The Error body goes to
  // the model as text instead, after a one-line summary (McpToolCallResult in the spec).
  return {
    content: [
      { type: 'text', text: `${outcome.error.code}: ${outcome.error.message}` },
      { type: 'text', text: JSON.stringify(outcome.error) },
    ],
    isError: true,
  };
}

/**
 * The SDK keeps its tools in a plain object and looks a `tools/call` name up with `registry[name]`,
 * so `__proto__`, `constructor` or `toString` found Object.prototype's members ("Tool __proto__
 * disabled") instead of nothing. With no prototype, every name that is not a tool is "not found".
 * Should the SDK rename its registry, the MCP endpoint test of those names fails.
 */
function withoutPrototypeLookups(server: McpServer): void {
  const registry: unknown = Reflect.get(server, '_registeredTools');
  if (registry !== null && typeof registry === 'object') Object.setPrototypeOf(registry, null);
}

export function buildMcpServer(ctx: ToolContext): McpServer {
  // The SDK answers initialize with the client's requested revision when it is a 2025 one listed
  // here, else the newest 2025 one listed: the MCP negotiation rule, with no layer of ours.
  const server = new McpServer(SERVER_INFO, {
    capabilities: CAPABILITIES,
    instructions: INSTRUCTIONS,
    supportedProtocolVersions: [...PROTOCOL_VERSIONS],
  });
  withoutPrototypeLookups(server);
  for (const tool of MCP_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: advertised(tool.input),
        outputSchema: output(tool.output),
        annotations: tool.annotations,
      },
      async (args: unknown) => toCallToolResult(await tool.call(ctx, args)),
    );
  }
  return server;
}
