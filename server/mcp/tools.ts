// The four MCP tools: each is the batch operation of the same name (same params, same answer)
// reached through PublicReads, so REST, batch and MCP answer alike. A tool never throws: bad
// arguments and failed reads come back as the `Error` body the REST call would have answered.
import type * as z from 'zod';
import type { components } from '../../generated/public.d.ts';
import { ApiError, type ErrorDetail } from '../http/errors.ts';
import type { Viewer } from '../public-api/context.ts';
import type { PublicReads } from '../public-api/reads-service.ts';
import * as S from './schemas.ts';

type Schemas = components['schemas'];
export type McpToolName = Schemas['McpTool']['name'];
export type ErrorBody = Schemas['Error'];

/** What a tool call answers: the REST body, or the REST error. */
export type ToolOutcome = { ok: true; body: Record<string, unknown>; text: string } | { ok: false; error: ErrorBody };

export interface ToolContext {
  reads: PublicReads;
  viewer: Viewer | undefined;
  requestId: string | undefined;
  log: (message: string, err?: unknown) => void;
  /**
   * `params.arguments` of the `tools/call` message as the request body was parsed, when it has
   * one. The tool checks these, not the SDK's copy: the SDK rebuilds the object by assignment,
   * which turns a `"__proto__"` member into the copy's prototype, out of sight of the closed
   * schema (it would pass where every other unknown key is refused).
   */
  sentArguments?: unknown;
}

export interface McpToolDefinition {
  name: McpToolName;
  title: string;
  description: string;
  input: z.ZodType;
  output: z.ZodType;
  annotations: { readOnlyHint: true; idempotentHint: true; destructiveHint: false; openWorldHint: boolean };
  call(ctx: ToolContext, args: unknown): Promise<ToolOutcome>;
}

interface Spec<I extends z.ZodType, O> extends Omit<McpToolDefinition, 'call' | 'input'> {
  input: I;
  run(ctx: ToolContext, args: z.infer<I>): Promise<O>;
  summary(body: O): string;
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function argumentError(error: z.ZodError): ErrorBody {
  const details: ErrorDetail[] = error.issues.map((issue) => ({
    path: ['/arguments', ...issue.path.map(String)].join('/'),
    message: issue.message,
  }));
  return {
    code: 'validation_error',
    message: `Invalid arguments: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`,
    details,
  };
}

function define<I extends z.ZodType, O>(spec: Spec<I, O>): McpToolDefinition {
  const { run, summary, ...rest } = spec;
  return {
    ...rest,
    async call(ctx, raw) {
      const parsed = spec.input.safeParse((ctx.sentArguments !== undefined ? ctx.sentArguments : raw) ?? {});
      if (!parsed.success) return { ok: false, error: withRequestId(argumentError(parsed.error), ctx.requestId) };
      try {
        const body = await run(ctx, parsed.data);
        return { ok: true, body: body as Record<string, unknown>, text: summary(body) };
      } catch (err) {
        if (err instanceof ApiError) {
          return {
            ok: false,
            error: withRequestId(
              { code: err.code, message: err.message, ...(err.details?.length ? { details: err.details } : {}) },
              ctx.requestId,
            ),
          };
        }
        ctx.log(`MCP tool ${spec.name} failed`, err);
        return {
          ok: false,
          error: withRequestId(
            { code: 'internal_error', message: 'An unexpected error occurred; retry with exponential back-off' },
            ctx.requestId,
          ),
        };
      }
    },
  };
}

function withRequestId(error: ErrorBody, requestId: string | undefined): ErrorBody {
  return requestId ? { ...error, request_id: requestId } : error;
}

function describeSearchResult(r: Schemas['DomainSearchResult']): string {
  if (r.status === 'taken') return `${r.domain} is taken`;
  const what = r.status === 'listed' ? 'is listed for sale' : 'is unregistered';
  if (r.price_masked) return `${r.domain} ${what} (price hidden: sign in for real prices)`;
  return r.price === null ? `${r.domain} ${what}` : `${r.domain} ${what} at ${dollars(r.price)}`;
}

const READ_ONLY = { readOnlyHint: true, idempotentHint: true, destructiveHint: false } as const;

export const MCP_TOOLS: readonly McpToolDefinition[] = [
  define({
    name: 'search_domain',
    title: 'Search a domain',
    description:
      'Availability of a domain or bare label (listed for sale, unregistered, or taken) plus the same label on up to 10 other TLDs. ' +
      'Prices are in USD cents: real with a bearer token holding pricing:read, masked otherwise (price null, price_masked true).',
    input: S.DomainSearchRequest,
    output: S.DomainSearchResponse,
    annotations: { ...READ_ONLY, openWorldHint: false },
    run: (ctx, args) => ctx.reads.searchDomain(args, ctx.viewer),
    summary: (body) => {
      const available = body.alternatives.filter((a) => a.available).map((a) => a.domain);
      return `${describeSearchResult(body.result)}.${available.length ? ` Also available: ${available.join(', ')}.` : ''}`;
    },
  }),
  define({
    name: 'whois_lookup',
    title: 'WHOIS / RDAP lookup',
    description:
      'Registration data of a registered domain in RDAP shape: registrar, registrant (unless redacted), creation, update and expiry dates, nameservers.',
    input: S.WhoisRequest,
    output: S.WhoisResult,
    annotations: { ...READ_ONLY, openWorldHint: true },
    run: (ctx, args) => ctx.reads.whoisLookup(args),
    summary: (body) =>
      `${body.domain}: registrar ${body.registrar ?? 'unknown'}, registrant ${body.registrant ?? 'redacted'}, ` +
      `expires ${body.expires_at ?? 'unknown'}, nameservers ${body.nameserver_names.join(', ') || 'none'}.`,
  }),
  define({
    name: 'tld_registration_price',
    title: 'TLD price',
    description:
      'Current USD price (cents, one-year term) to register, renew, transfer or restore a domain on a TLD. Give `op` for one action, omit it for all four.',
    input: S.TldPriceParams,
    output: S.TldPrice,
    annotations: { ...READ_ONLY, openWorldHint: false },
    run: (ctx, args) => ctx.reads.tldPrice({ tld: args.tld, ...(args.op ? { action: args.op } : {}) }),
    summary: (body) => {
      const parts = Object.entries(body.prices).map(
        ([action, cents]) => `${action} ${cents === null || cents === undefined ? 'not offered' : dollars(cents)}`,
      );
      return `.${body.tld} (${body.currency}, ${body.term_years} year): ${parts.join(', ')}.`;
    },
  }),
  define({
    name: 'tld_requirements',
    title: 'TLD requirements',
    description:
      'Registration requirements of a TLD: allowed terms, who may register (organization and local-presence rules), nameserver rules, IDN, DNSSEC and privacy support.',
    input: S.TldRequirementsParams,
    output: S.TldMetadata,
    annotations: { ...READ_ONLY, openWorldHint: false },
    run: (ctx, args) => ctx.reads.tldMetadata(args),
    summary: (body) =>
      `.${body.tld} (${body.type}): terms ${body.term_years.min}-${body.term_years.max} years; ` +
      `${body.organization.required ? 'organizations only' : 'anyone may register'}` +
      `${body.organization.local_presence_required ? ', local presence required' : ''}; ` +
      `${body.nameservers.min}-${body.nameservers.max} nameservers.`,
  }),
];
