// The reference page of one API, as Markdown, generated from its bundled OpenAPI document: the
// operations grouped by tag (method, path, summary, description, authentication, scopes,
// rate-limit class, parameters, request body, responses with their error codes, the other
// per-operation x- facts), then the webhooks and the schemas. Pure: document in, text out.

import type { ApiContract } from '../contract/index.ts';
import { headingId } from './markdown.ts';

export type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** x- members shown in their own rows, or internal to the validator, so not repeated as "other facts". */
const SHOWN_EXTENSIONS = new Set(['x-scopes', 'x-rate-limit', 'x-eov-allow-unknown-query-parameters']);

export interface ReferenceOptions {
  /** Page title, e.g. "Public API reference". */
  title: string;
  /** Where the document itself is served, if it is (e.g. `/openapi.json`). */
  documentPath?: string;
  /** One sentence on how this surface authenticates, shown when an operation says nothing. */
  defaultAuthentication: string;
  /** Code samples of one operation (its parameters and request body resolved), shown last in its section. */
  codeSamples?: (method: string, path: string, parameters: Json[], requestBody: Json | undefined) => string[];
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asObject = (v: unknown): Json => (isObject(v) ? v : {});
const asString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The heading an operation gets, so other pages (and tests) can name its anchor. */
export const operationHeading = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

const refName = (node: unknown): string | undefined => {
  const ref = asString(asObject(node).$ref);
  return ref ? ref.slice(ref.lastIndexOf('/') + 1) : undefined;
};

/** One line, safe inside a Markdown table cell. */
export function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\|/g, '\\|')
    .trim();
}

/** The id the HTML heading of a schema gets (see headingId), which type summaries link to. */
export const schemaAnchor = (name: string) => headingId(`Schema ${name}`);

const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

/** A short type description: `integer (1 to 100, default 20)`, `[DomainName](#domainname)`, `array of Listing`. */
export function schemaSummary(schema: unknown, linkSchemas = true): string {
  const s = asObject(schema);
  const named = refName(s);
  if (named) return linkSchemas ? `[${named}](#${schemaAnchor(named)})` : named;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const alts = asArray(s[key]);
    if (alts.length) return alts.map((a) => schemaSummary(a, linkSchemas)).join(' or ');
  }
  if (s.const !== undefined) return `${code(JSON.stringify(s.const))} (constant)`;
  const types = Array.isArray(s.type)
    ? (s.type as unknown[]).map(String)
    : s.type !== undefined
      ? [String(s.type)]
      : [];
  let base = types.length ? types.join(' or ') : 'any';
  if (types.includes('array')) base = base.replace('array', `array of ${schemaSummary(s.items, linkSchemas)}`);
  const facts: string[] = [];
  const enumValues = asArray(s.enum);
  if (enumValues.length) facts.push(`one of ${enumValues.map((v) => code(String(v))).join(', ')}`);
  if (typeof s.format === 'string') facts.push(`format ${s.format}`);
  const range = (lo: unknown, hi: unknown, unit: string) => {
    if (typeof lo === 'number' && typeof hi === 'number') facts.push(`${lo} to ${hi}${unit}`);
    else if (typeof lo === 'number') facts.push(`at least ${lo}${unit}`);
    else if (typeof hi === 'number') facts.push(`at most ${hi}${unit}`);
  };
  range(s.minimum, s.maximum, '');
  range(s.minLength, s.maxLength, ' characters');
  range(s.minItems, s.maxItems, ' items');
  if (typeof s.pattern === 'string' && s.pattern.length <= 60) facts.push(`pattern ${code(s.pattern)}`);
  if (s.default !== undefined) facts.push(`default ${code(JSON.stringify(s.default))}`);
  return facts.length ? `${base} (${facts.join(', ')})` : base;
}

function authentication(op: Json, document: Json, fallback: string): string {
  const requirements = (Array.isArray(op.security) ? op.security : document.security) as unknown[] | undefined;
  if (!requirements || requirements.length === 0) return 'None';
  const parts = requirements.map((r) => asObject(r));
  const optional = parts.some((r) => Object.keys(r).length === 0);
  const schemes = parts.filter((r) => Object.keys(r).length > 0);
  if (schemes.length === 0) return 'None';
  const oauth = schemes.flatMap((r) => Object.entries(r).filter(([name]) => name === 'OAuth2'));
  if (oauth.length) {
    const scopes = [...new Set(oauth.flatMap(([, s]) => asArray(s).map(String)))];
    const token = scopes.length
      ? `a bearer token with ${scopes.map(code).join(' or ')}`
      : 'a valid bearer token (any scope)';
    return optional ? `Optional: ${token}; without one the operation still answers` : `Required: ${token}`;
  }
  return fallback;
}

function rateLimit(op: Json, document: Json): string | undefined {
  const cls = asString(op['x-rate-limit']);
  if (!cls) return undefined;
  const quota = asObject(asObject(document['x-rate-limit-classes'])[cls]);
  if (typeof quota.quota === 'number' && typeof quota['window-seconds'] === 'number') {
    return `${code(cls)}: ${quota.quota} requests per ${quota['window-seconds']} s`;
  }
  return code(cls);
}

function mediaList(content: unknown, linkSchemas = true): string {
  return Object.entries(asObject(content))
    .map(([type, media]) => {
      const schema = asObject(media).schema;
      return schema ? `${code(type)} ${schemaSummary(schema, linkSchemas)}` : code(type);
    })
    .join('; ');
}

function parametersSection(op: Json, pathItem: Json, r: ApiContract): string[] {
  const params = [...asArray(pathItem.parameters), ...asArray(op.parameters)].map((p) => r.resolve(p));
  if (params.length === 0) return [];
  const rows = params.map((p) => {
    const description = asString(p.description) ?? '';
    return `| ${code(String(p.name))} | ${String(p.in)} | ${p.required === true ? 'yes' : 'no'} | ${cell(schemaSummary(p.schema))} | ${cell(description)} |`;
  });
  return [
    '#### Parameters',
    '',
    '| Name | In | Required | Schema | Description |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ];
}

function requestBodySection(op: Json, r: ApiContract): string[] {
  if (!op.requestBody) return [];
  const body = r.resolve(op.requestBody);
  const lines = [
    '#### Request body',
    '',
    `${mediaList(body.content)}${body.required === true ? ' (required)' : ' (optional)'}`,
    '',
  ];
  const description = asString(body.description);
  if (description) lines.push(description.trim(), '');
  return lines;
}

function responsesSection(op: Json, r: ApiContract): string[] {
  const responses = Object.entries(asObject(op.responses));
  if (responses.length === 0) return [];
  const rows = responses.map(([status, raw]) => {
    const response = r.resolve(raw);
    const codes = [...asArray(response['x-error-codes']), ...asArray(response['x-oauth-errors'])]
      .map((c) => code(String(c)))
      .join(', ');
    const headers = Object.keys(asObject(response.headers)).filter((h) => !/^(X-Request-Id|RateLimit.*)$/.test(h));
    const description =
      cell(asString(response.description) ?? '') + (headers.length ? ` Headers: ${headers.map(code).join(', ')}.` : '');
    return `| ${status} | ${description} | ${cell(mediaList(response.content))} | ${codes} |`;
  });
  return ['#### Responses', '', '| Status | Description | Content | Codes |', '|---|---|---|---|', ...rows, ''];
}

function extensionsSection(op: Json): string[] {
  const facts = Object.entries(op).filter(([k]) => k.startsWith('x-') && !SHOWN_EXTENSIONS.has(k));
  if (facts.length === 0) return [];
  const lines = ['#### Other facts', ''];
  for (const [key, value] of facts) {
    const json = JSON.stringify(value, null, 2);
    if (typeof value === 'string') lines.push(`- ${code(key)}: ${cell(value)}`);
    else if (json.length <= 100) lines.push(`- ${code(key)}: ${code(JSON.stringify(value))}`);
    else lines.push(`- ${code(key)}:`, '', '  ```json', ...json.split('\n').map((l) => `  ${l}`), '  ```', '');
  }
  lines.push('');
  return lines;
}

function operationSection(
  method: string,
  path: string,
  op: Json,
  pathItem: Json,
  document: Json,
  r: ApiContract,
  options: ReferenceOptions,
): string[] {
  const facts: Array<[string, string]> = [['Operation', code(String(op.operationId))]];
  facts.push(['Authentication', authentication(op, document, options.defaultAuthentication)]);
  const scopes = asArray(op['x-scopes']).map((s) => code(String(s)));
  if (scopes.length) facts.push(['Scopes', scopes.join(', ')]);
  const limit = rateLimit(op, document);
  if (limit) facts.push(['Rate limit', limit]);
  if (op.deprecated === true)
    facts.push(['Deprecated', 'yes: answers carry `Deprecation`, `Sunset` and `Link` headers']);
  const lines = [
    `### ${operationHeading(method, path)}`,
    '',
    `**${asString(op.summary) ?? String(op.operationId)}**`,
    '',
    '| | |',
    '|---|---|',
    ...facts.map(([k, v]) => `| ${k} | ${cell(v)} |`),
    '',
  ];
  const description = asString(op.description);
  if (description) lines.push(description.trim(), '');
  lines.push(
    ...parametersSection(op, pathItem, r),
    ...requestBodySection(op, r),
    ...responsesSection(op, r),
    ...extensionsSection(op),
  );
  if (options.codeSamples) {
    const parameters = [...asArray(pathItem.parameters), ...asArray(op.parameters)].map((p) => r.resolve(p));
    lines.push(
      ...options.codeSamples(method, path, parameters, op.requestBody ? r.resolve(op.requestBody) : undefined),
    );
  }
  return lines;
}

function webhooksSection(document: Json, r: ApiContract): string[] {
  const hooks = Object.entries(asObject(document.webhooks));
  if (hooks.length === 0) return [];
  const lines = ['## Webhooks', '', 'Deliveries the service POSTs to the registered URL.', ''];
  for (const [name, item] of hooks) {
    for (const method of METHODS) {
      const op = asObject(asObject(item)[method]);
      if (Object.keys(op).length === 0) continue;
      lines.push(`### Webhook ${name}`, '', `**${asString(op.summary) ?? name}**`, '');
      const description = asString(op.description);
      if (description) lines.push(description.trim(), '');
      lines.push(...parametersSection(op, asObject(item), r), ...requestBodySection(op, r), ...responsesSection(op, r));
    }
  }
  return lines;
}

function schemasSection(document: Json): string[] {
  const schemas = Object.entries(asObject(asObject(document.components).schemas));
  if (schemas.length === 0) return [];
  const lines = ['## Schemas', ''];
  for (const [name, raw] of schemas) {
    const schema = asObject(raw);
    lines.push(`### Schema ${name}`, '', `Type: ${cell(schemaSummary(schema))}`, '');
    const description = asString(schema.description);
    if (description) lines.push(description.trim(), '');
    const properties = Object.entries(asObject(schema.properties));
    if (properties.length) {
      const required = new Set(asArray(schema.required).map(String));
      lines.push('| Property | Type | Required | Description |', '|---|---|---|---|');
      for (const [prop, sub] of properties) {
        lines.push(
          `| ${code(prop)} | ${cell(schemaSummary(sub))} | ${required.has(prop) ? 'yes' : 'no'} | ${cell(asString(asObject(sub).description) ?? '')} |`,
        );
      }
      lines.push('');
    }
  }
  return lines;
}

export function referenceMarkdown(contract: ApiContract, options: ReferenceOptions): string {
  const r = contract;
  const document = contract.document;
  const info = asObject(document.info);
  const tags = asArray(document.tags).map((t) => asObject(t));
  const byTag = new Map<string, string[][]>();
  for (const tag of tags) byTag.set(String(tag.name), []);
  for (const operation of contract.operations) {
    const op = operation.object;
    const tag = asString(asArray(op.tags)[0]) ?? 'Other';
    if (!byTag.has(tag)) byTag.set(tag, []);
    byTag
      .get(tag)
      ?.push(
        operationSection(
          operation.method.toLowerCase(),
          operation.path,
          op,
          contract.pathItem(operation.path),
          document,
          r,
          options,
        ),
      );
  }

  const lines = [`# ${options.title}`, ''];
  const about = [`${asString(info.title) ?? ''}, version ${asString(info.version) ?? '?'}.`];
  if (options.documentPath) about.push(`The OpenAPI document: [\`${options.documentPath}\`](${options.documentPath}).`);
  lines.push(about.join(' '), '');
  const description = asString(info.description);
  if (description) lines.push(description.trim(), '');

  const sections = [...byTag.entries()].filter(([, ops]) => ops.length > 0);
  lines.push('## Contents', '');
  for (const [tag, ops] of sections)
    lines.push(`- [${tag}](#${headingId(tag)}) (${ops.length} ${ops.length === 1 ? 'operation' : 'operations'})`);
  if (Object.keys(asObject(document.webhooks)).length) lines.push('- [Webhooks](#webhooks)');
  lines.push('- [Schemas](#schemas)', '');

  for (const [tag, ops] of sections) {
    lines.push(`## ${tag}`, '');
    const tagDescription = asString(tags.find((t) => t.name === tag)?.description);
    if (tagDescription) lines.push(tagDescription.trim(), '');
    for (const op of ops) lines.push(...op);
  }
  lines.push(...webhooksSection(document, r), ...schemasSection(document));
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}
