// Shared by the docs tests: the bundled documents and the guide sources read from disk (never
// from server code), section helpers for Markdown, and Ajv validators for the documents' schemas.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export type Json = Record<string, unknown>;
export type Api = 'public' | 'partner' | 'admin';

const root = new URL('../../', import.meta.url);

export const readRepoFile = (path: string) => readFileSync(new URL(path, root), 'utf8');

export const documents: Record<Api, Json> = {
  public: JSON.parse(readRepoFile('generated/public.openapi.json')) as Json,
  partner: JSON.parse(readRepoFile('generated/partner.openapi.json')) as Json,
  admin: JSON.parse(readRepoFile('generated/admin.openapi.json')) as Json,
};

/** The npm packages' READMEs are docs pages too: slug → package folder. */
const PACKAGE_READMES: Record<string, string> = {
  'package-client': 'client',
  'package-sandbox': 'server',
  'package-conformance': 'conformance',
  'package-contract': 'generated',
};

export const guide = (slug: string) =>
  readRepoFile(
    slug === 'signing'
      ? 'spec/docs/signing.md'
      : slug in PACKAGE_READMES
        ? `${PACKAGE_READMES[slug]}/README.md`
        : `docs/guides/${slug}.md`,
  );

export const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Follows local `$ref`s. */
export function deref(doc: Json, node: unknown): Json {
  let current = obj(node);
  for (let i = 0; typeof current.$ref === 'string'; i++) {
    if (i > 20) throw new Error('reference cycle');
    let target: unknown = doc;
    for (const part of current.$ref.slice(2).split('/')) target = obj(target)[part];
    current = obj(target);
  }
  return current;
}

export interface Operation {
  method: string;
  path: string;
  op: Json;
}

export function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(obj(doc.paths))) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = obj(obj(item)[method]);
      if (typeof op.operationId === 'string') out.push({ method: method.toUpperCase(), path, op });
    }
  }
  return out;
}

export const schema = (doc: Json, name: string): Json => obj(obj(obj(doc.components).schemas)[name]);
export const parameter = (doc: Json, name: string): Json => obj(obj(obj(doc.components).parameters)[name]);

/** The text of a Markdown section: from its heading to the next heading of the same or a higher level. */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.trim() === heading);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const level = /^#+/.exec(heading)?.[0].length ?? 2;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    const m = /^(#+) /.exec(lines[i] ?? '');
    if (m && (m[1]?.length ?? 0) <= level) {
      end = i;
      break;
    }
  }
  return lines.slice(start, end).join('\n');
}

const isRow = (line: string | undefined) => /^\|.*\|$/.test((line ?? '').trim());
const isSeparator = (line: string | undefined) => /^\|[\s|:-]+\|$/.test((line ?? '').trim());

/** The body rows of the Markdown tables in `text` (header rows left out), each as its trimmed cells. */
export function tableRows(text: string): string[][] {
  const lines = text.split('\n');
  return lines
    .filter((l, i) => isRow(l) && !isSeparator(l) && !isSeparator(lines[i + 1]))
    .map((l) =>
      l
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
}

export const unquote = (cell: string | undefined) => (cell ?? '').replace(/^`|`$/g, '');

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
for (const api of ['public', 'partner'] as const)
  ajv.addSchema({ $id: `docs-${api}`, components: documents[api].components });
const compiled = new Map<string, ValidateFunction>();

/** Throws with Ajv's errors when `value` does not match the component schema `name` of `api`. */
export function assertSchema(api: 'public' | 'partner', name: string, value: unknown): void {
  const key = `${api}:${name}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ $ref: `docs-${api}#/components/schemas/${name}` });
    compiled.set(key, validate);
  }
  if (!validate(value)) throw new Error(`${name} does not match: ${JSON.stringify(validate.errors, null, 1)}`);
}
