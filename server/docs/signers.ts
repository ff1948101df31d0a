// The reference signers of examples/signing/<language>/ on the docs: a page per language (its
// README and its source files, `/docs/signing-<language>`) and, on every operation of the partner
// reference, a call sample per language. The sample is that language's own template,
// examples/signing/<language>/snippet.<ext>.tmpl, filled with the operation's method, path,
// query and body: the docs carry no second copy of any signer. A language folder that is absent,
// or has no template, is simply not shown.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeComponent } from '../../client/protocol/index.ts';

export interface SignerSource {
  /** The folder name: `go`, `java`, `python`, … */
  language: string;
  /** The template's code language (`snippet.go.tmpl` → `go`), for the code fence. */
  fence: string;
  template: string;
  readme: string;
  /** The other files of the folder, by name, in name order. */
  files: ReadonlyArray<{ name: string; text: string }>;
}

const LABELS: Record<string, string> = {
  shell: 'Shell (curl + openssl)',
  python: 'Python',
  php: 'PHP',
  ruby: 'Ruby',
  go: 'Go',
  java: 'Java',
};
/** Display order; a language not listed comes after these, by name. */
const ORDER = ['shell', 'python', 'php', 'ruby', 'go', 'java'];

export const signerLabel = (language: string) =>
  LABELS[language] ?? language.charAt(0).toUpperCase() + language.slice(1);
export const signerSlug = (language: string) => `signing-${language}`;

const SNIPPET = /^snippet\.([a-z0-9]+)\.tmpl$/;
const LANGUAGE = /^[a-z0-9]+$/;
const FENCE_NAMES: Record<string, string> = { py: 'python', rb: 'ruby', sh: 'sh', mod: 'text', work: 'text' };

export function loadSigners(root: string): SignerSource[] {
  const base = join(root, 'examples', 'signing');
  if (!existsSync(base)) return [];
  const signers: SignerSource[] = [];
  for (const entry of readdirSync(base, { withFileTypes: true })) {
    if (!entry.isDirectory() || !LANGUAGE.test(entry.name)) continue;
    const dir = join(base, entry.name);
    const names = readdirSync(dir).sort();
    const snippet = names.find((n) => SNIPPET.test(n));
    if (!snippet || !names.includes('README.md')) continue;
    const files = names
      .filter((n) => n !== 'README.md' && n !== snippet && !n.startsWith('.'))
      .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
    signers.push({
      language: entry.name,
      fence: SNIPPET.exec(snippet)![1]!,
      template: readFileSync(join(dir, snippet), 'utf8'),
      readme: readFileSync(join(dir, 'README.md'), 'utf8'),
      files,
    });
  }
  const rank = (l: string) => (ORDER.includes(l) ? ORDER.indexOf(l) : ORDER.length);
  return signers.sort((a, b) => rank(a.language) - rank(b.language) || a.language.localeCompare(b.language));
}

/** One call of an operation, with example values, as the samples show it. */
export interface SampleCall {
  method: string;
  /** The path with its parameters filled in. */
  path: string;
  /** The raw query (percent-encoded), `''` when none. */
  query: string;
  /** The exact body text, or undefined. */
  body: string | undefined;
  /** Whether the operation takes an Idempotency-Key (POST /orders). */
  idempotency: boolean;
}

// The quoting a template asks for: {{body|json}} is a JSON string literal (valid in Go, Java,
// Python, JavaScript), {{body|sq}} a single-quoted literal with \\ and \' (PHP, Ruby, Python),
// {{body|shell}} a POSIX shell word; {{body}} alone is the raw text.
const FILTERS: Record<string, (text: string) => string> = {
  json: (t) => JSON.stringify(t),
  sq: (t) => `'${t.replace(/[\\']/g, (c) => `\\${c}`)}'`,
  shell: (t) => `'${t.replace(/'/g, `'\\''`)}'`,
};

/**
 * Fills a template: `{{name}}` or `{{name|filter}}` with name one of method, path, query, target,
 * body; `{{#flag}}…{{/flag}}` kept only when the flag is set (body, query, idempotency) and
 * `{{^flag}}…{{/flag}}` only when it is not. Unknown names and filters throw, so a template
 * with a typo fails the docs build (and its test) instead of printing a hole.
 */
export function renderSnippet(template: string, call: SampleCall): string {
  const target = call.query ? `${call.path}?${call.query}` : call.path;
  const values: Record<string, string> = {
    method: call.method,
    path: call.path,
    query: call.query,
    target,
    body: call.body ?? '',
  };
  const flags: Record<string, boolean> = {
    body: call.body !== undefined,
    query: call.query !== '',
    idempotency: call.idempotency,
  };
  const blocks = template.replace(
    /\{\{([#^])([a-z]+)\}\}([\s\S]*?)\{\{\/\2\}\}/g,
    (_m, sign: string, flag: string, inner: string) => {
      if (!(flag in flags)) throw new Error(`snippet template: unknown flag ${flag}`);
      return flags[flag] === (sign === '#') ? inner : '';
    },
  );
  return blocks.replace(/\{\{([a-z]+)(?:\|([a-z]+))?\}\}/g, (_m, name: string, filter: string | undefined) => {
    const value = values[name];
    if (value === undefined) throw new Error(`snippet template: unknown name ${name}`);
    if (filter === undefined) return value;
    const apply = FILTERS[filter];
    if (!apply) throw new Error(`snippet template: unknown filter ${filter}`);
    return apply(value);
  });
}

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

function exampleOf(node: Json): unknown {
  if (node.example !== undefined) return node.example;
  const schema = asObject(node.schema);
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  const first = Object.values(asObject(node.examples))[0];
  return first === undefined ? undefined : asObject(first).value;
}

/**
 * The call the samples show: path parameters and required query parameters from their
 * examples (a parameter without one keeps its `{name}`, or `…`), the body from the request
 * body's first example, compact, as it would be sent.
 */
export function sampleCall(
  method: string,
  path: string,
  parameters: readonly Json[],
  requestBody: Json | undefined,
): SampleCall {
  let filled = path;
  const query: string[] = [];
  let idempotency = false;
  for (const p of parameters) {
    const name = String(p.name);
    const example = exampleOf(p);
    if (p.in === 'path' && example !== undefined)
      filled = filled.replace(`{${name}}`, encodeComponent(String(example)));
    if (p.in === 'query' && p.required === true)
      query.push(`${encodeComponent(name)}=${example === undefined ? '…' : encodeComponent(String(example))}`);
    if (p.in === 'header' && name.toLowerCase() === 'idempotency-key') idempotency = true;
  }
  const media = asObject(asObject(requestBody?.content)['application/json']);
  const bodyExample = requestBody ? exampleOf(media) : undefined;
  return {
    method: method.toUpperCase(),
    path: filled,
    query: query.join('&'),
    body: bodyExample === undefined ? undefined : JSON.stringify(bodyExample),
    idempotency,
  };
}

/** A code fence longer than any run of backticks in `text`. */
export function fenced(text: string, language: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${language}`, ...text.replace(/\n$/, '').split('\n'), fence];
}

/** The "Code samples" block of one partner operation: the partner CLI, then each language. */
export function samplesMarkdown(call: SampleCall, signers: readonly SignerSource[]): string[] {
  const target = call.query ? `${call.path}?${call.query}` : call.path;
  const cli = [
    `domain-sales request ${call.method} ${FILTERS.shell!(target)}${call.body === undefined ? '' : ` --data ${FILTERS.shell!(call.body)}`} --curl`,
  ].join('\n');
  const lines = [
    '#### Code samples',
    '',
    'Each sample signs the request as the [signing guide](/docs/signing) says, with the reference signer of its language; `SERVICE_KEY_ID` and `SERVICE_SECRET` are your credential.',
    '',
    '**curl** (the partner CLI prints the signed curl command; `--explain` shows the string it signs):',
    '',
    ...fenced(cli, 'sh'),
    '',
  ];
  for (const s of signers) {
    lines.push(
      `**${signerLabel(s.language)}** ([the ${signerLabel(s.language)} signer](/docs/${signerSlug(s.language)})):`,
      '',
      ...fenced(renderSnippet(s.template, call), s.fence),
      '',
    );
  }
  return lines;
}

/** The page of one signer: its README, then its source files. */
export function signerPageMarkdown(s: SignerSource): string {
  const lines = [s.readme.trim(), '', '## The source', ''];
  for (const f of s.files) {
    const ext = /\.([a-z0-9]+)$/.exec(f.name)?.[1] ?? '';
    lines.push(`### ${f.name}`, '', ...fenced(f.text, FENCE_NAMES[ext] ?? ext), '');
  }
  return `${lines.join('\n')}\n`;
}
