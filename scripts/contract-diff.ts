// npm run contract:diff -- --base <git-ref> [--output FILE] [--json FILE]
//
// The breaking-change gate. Compares the contract at a git ref with the working tree and fails
// (exit 1) on any breaking change to a published surface:
//   - public:  additive only (fields and operations may be added, never removed or renamed);
//   - partner: /api/partner/v1 and its webhooks; a breaking change needs a new version path.
// The operator API (admin) is internal: its changes are reported but never fail the gate.
//
// `redocly diff` (diff-recommended rules, offline) rates every change by the semver bump it
// needs; a `major` change is breaking. One classifier of our own is added on top: an enum that
// loses values is breaking wherever it is. Redocly rates a response enum losing values as a
// patch (no client's request can fail), but under the additive-only policy a documented value
// disappearing is a removal, and clients switching on it break silently.
//
// A breaking change can be accepted in the spec itself, where it is made and where readers see
// it: the schema (or other object) whose keyword changed carries `x-accepted-breaking-change`
// (`keywords` it covers, `reason`, and the document `version` that makes it). Such a change is listed under its own heading with the reason
// and does not fail the gate; it is meant for what must narrow on purpose, such as an input a
// security fix stops accepting.
//
// Exit codes: 0 no breaking change on a gated API, 1 a breaking change, 2 usage or git error.
import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, parseArgs, promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { APIS, ROOT, bundle, type ApiName } from './contract.ts';
import { extensionChanges } from './contract-diff-extensions.ts';
import { oneSpelling } from './contract-diff-spelling.ts';

const run = promisify(execFile);
const REDOCLY = join(ROOT, 'node_modules', '.bin', 'redocly');
const QUIET_ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

type Json = Record<string, unknown>;

/** Which APIs fail the gate on a breaking change, and which are only reported. */
export const GATE: Record<ApiName, { gated: boolean; policy: string }> = {
  public: { gated: true, policy: 'additive only: fields and operations may be added, never removed or renamed' },
  partner: { gated: true, policy: '/api/partner/v1 is frozen: a breaking change needs a new version path' },
  admin: { gated: false, policy: 'internal operator API: changes are reported, never fail the gate' },
};

export interface Change {
  /** Where the change is seen from, e.g. `POST /api/partner/v1/orders` or `webhook order.settled`. */
  where: string;
  kind: 'added' | 'removed' | 'modified' | string;
  impact: 'major' | 'minor' | 'patch' | 'none' | string;
  breaking: boolean;
  /** Human reading of the change. */
  message: string;
  /** Rule that rated it (`property-removed`, …, or `enum-narrowed` for our own classifier). */
  rule: string | undefined;
  /** JSON pointer of the change in the document that carries it (deduplication key). */
  pointer: string;
  /** Set when the revision accepts this breaking change (`x-accepted-breaking-change`): its reason. */
  accepted?: string;
}

export interface ApiDiff {
  api: ApiName;
  gated: boolean;
  /** No document at the base: nothing published to break. */
  newApi: boolean;
  changes: Change[];
  /** Breaking changes that fail the gate (on a gated API). */
  breaking: Change[];
  /** Breaking changes the revision accepts with `x-accepted-breaking-change`. */
  accepted: Change[];
}

interface RedoclyLocation {
  pointer?: string;
  value?: unknown;
}
interface RedoclyChange {
  path: string;
  kind: string;
  impact: string;
  property?: string;
  verdicts?: Array<{ ruleId?: string; impact?: string; message?: string; location?: RedoclyLocation }>;
  base?: RedoclyLocation;
  revision?: RedoclyLocation;
}

const unescape = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');
const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/** `#/paths/~1api~1x/post/responses/200/...` → `POST /api/x`. */
export function describeLocation(pointer: string): string {
  const parts = pointer.replace(/^#\//, '').split('/').map(unescape);
  if (parts[0] === 'paths' && parts[1]) {
    const method = parts[2] && METHODS.has(parts[2]) ? `${parts[2].toUpperCase()} ` : '';
    return `${method}${parts[1]}`;
  }
  if (parts[0] === 'webhooks' && parts[1]) return `webhook ${parts[1]}`;
  return `#/${parts.slice(0, 3).join('/')}`;
}

/** The tail of a change pointer below the operation, e.g. `responses/200/…/properties/status`. */
function detail(pointer: string): string {
  const parts = pointer.replace(/^#\//, '').split('/').map(unescape);
  const start = parts[0] === 'paths' ? (parts[2] && METHODS.has(parts[2]) ? 3 : 2) : parts[0] === 'webhooks' ? 3 : 0;
  return parts
    .slice(start)
    .join('/')
    .replace(/content\/[^/]+\/schema/g, 'body')
    .replace(/\/properties\//g, '.')
    .replace(/^properties\//, '');
}

function enumNarrowing(c: RedoclyChange): string[] {
  if (c.kind !== 'modified' || c.property !== 'enum') return [];
  const before = c.base?.value;
  const after = c.revision?.value;
  if (!Array.isArray(before) || !Array.isArray(after)) return []; // enum added (narrowing from any) is rated by redocly; removed = widened
  const kept = new Set(after.map((v) => JSON.stringify(v)));
  return before.filter((v) => !kept.has(JSON.stringify(v))).map((v) => JSON.stringify(v));
}

/**
 * Changes redocly rates compatible that a conforming client can still trip on (each named after
 * the oasdiff rule that calls it an error):
 *  - a request parameter's or request body's `default` changed, added or removed: a client that
 *    omits the value silently gets other results (`request-parameter-default-value-changed`);
 *  - a response header that was required is no longer (`response-header-became-optional`);
 *  - anything removed from a webhook's request: the service is the client there, and the
 *    partner's receiver is what breaks (a header it deduplicates on, a body member it reads).
 */
function ownRule(c: RedoclyChange): { rule: string; message: string } | undefined {
  const inRequest = /\/(parameters|requestBody)(\/|$)/.test(c.path);
  if (c.property === 'default' && inRequest && !c.path.startsWith('#/webhooks/'))
    return {
      rule: 'request-parameter-default-value-changed',
      message: `Default of \`${detail(c.path)}\` changed: ${JSON.stringify(c.base?.value)} → ${JSON.stringify(c.revision?.value)} (a client that omits it gets other results).`,
    };
  if (c.property === 'required' && /\/responses\/[^/]+\/headers\/[^/]+$/.test(c.path) && c.base?.value === true)
    return {
      rule: 'response-header-became-optional',
      message: `Response header \`${c.path.split('/').pop()}\` is no longer required.`,
    };
  if (c.path.startsWith('#/webhooks/') && (c.kind === 'removed' || (c.property === 'required' && c.kind !== 'added')))
    return {
      rule: 'webhook-request-member-removed',
      message: `Webhook delivery lost \`${detail(c.path) || c.path}\`${c.property ? ` (${c.property})` : ''}: receivers may rely on it.`,
    };
  return undefined;
}

/** Turns redocly's JSON report into our changes, with the gate's own enum classifier applied. */
export function classify(report: { changes?: RedoclyChange[] }): Change[] {
  const out: Change[] = [];
  for (const c of report.changes ?? []) {
    // Changes inside `x-` values are rated by contract-diff-extensions.ts, once.
    if (/\/x-[^/]*/.test(c.path)) continue;
    const where = describeLocation(c.path);
    const own = c.impact === 'major' ? undefined : ownRule(c);
    if (own) {
      out.push({
        where,
        kind: c.kind,
        impact: 'major',
        breaking: true,
        message: own.message,
        rule: own.rule,
        pointer: c.revision?.pointer ?? c.base?.pointer ?? c.path,
      });
      continue;
    }
    const lost = enumNarrowing(c);
    const verdicts = c.verdicts ?? [];
    if (c.impact === 'major' && verdicts.length > 0) {
      for (const v of verdicts.filter((x) => x.impact === 'major' || x.impact === undefined)) {
        out.push({
          where,
          kind: c.kind,
          impact: 'major',
          breaking: true,
          message: v.message ?? `${c.kind} ${detail(c.path)}`,
          rule: v.ruleId,
          pointer: v.location?.pointer ?? c.revision?.pointer ?? c.base?.pointer ?? c.path,
        });
      }
      continue;
    }
    if (lost.length > 0) {
      out.push({
        where,
        kind: c.kind,
        impact: 'major',
        breaking: true,
        message: `Enum of \`${detail(c.path) || 'value'}\` lost values: ${lost.join(', ')} (a documented value was removed).`,
        rule:
          c.impact === 'major'
            ? 'enum-values-removed'
            : 'enum-narrowed (contract-diff classifier; redocly rated it ' + c.impact + ')',
        pointer: c.revision?.pointer ?? c.path,
      });
      continue;
    }
    const property = c.property ? ` \`${c.property}\`` : '';
    out.push({
      where,
      kind: c.kind,
      impact: c.impact,
      breaking: c.impact === 'major',
      message: verdicts[0]?.message ?? `${c.kind}${property}: \`${detail(c.path) || describeLocation(c.path)}\``,
      rule: verdicts[0]?.ruleId,
      pointer: c.revision?.pointer ?? c.base?.pointer ?? c.path,
    });
  }
  return out;
}

/** Runs `redocly diff` on two in-memory documents and returns its JSON report. */
export async function redoclyDiff(base: Json, revision: Json): Promise<{ changes?: RedoclyChange[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'contract-diff-'));
  try {
    const a = join(dir, 'base.json');
    const b = join(dir, 'revision.json');
    const out = join(dir, 'diff.json');
    await writeFile(a, JSON.stringify(base));
    await writeFile(b, JSON.stringify(revision));
    try {
      await run(REDOCLY, ['diff', a, b, '--format', 'json', '-o', out, '--fail-on', 'none', '--lint-config', 'off'], {
        cwd: ROOT,
        env: QUIET_ENV,
        maxBuffer: 64 * 1024 * 1024,
      });
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string; message: string };
      throw new Error(`redocly diff failed:\n${e.stderr ?? ''}${e.stdout ?? ''}${e.message}`, { cause: err });
    }
    return JSON.parse(await readFile(out, 'utf8')) as { changes?: RedoclyChange[] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const ACCEPTANCE = 'x-accepted-breaking-change';

/**
 * The reason the revision gives for accepting the change at `pointer` (`#/a/b/keyword`): the
 * object holding the changed keyword, or the nearest object above it that carries one, carries
 * `x-accepted-breaking-change` with that keyword in its `keywords`, a non-empty `reason`, and the
 * `version` of the document that makes the change: it must be the revision's `info.version` and
 * differ from the base's, so an acceptance covers the one release that made the change and never
 * a later change of the same keyword. (A schema can so accept the limits it states for all its
 * members at once.) A property removed or renamed (`…/properties/<name>`) is a change of `properties`.
 */
export function acceptedReason(revision: Json, pointer: string, baseVersion?: string): string | undefined {
  const parts = pointer.replace(/^#\//, '').split('/').map(unescape);
  let keyword = parts.pop();
  // A property removed or renamed is reported at `…/properties/<name>`: its keyword is `properties`.
  if (parts.at(-1) === 'properties') keyword = parts.pop();
  const path: unknown[] = [revision];
  for (const part of parts) {
    const node = path.at(-1);
    path.push(node && typeof node === 'object' ? (node as Json)[part] : undefined);
  }
  const holder = path.reverse().find((node) => node && typeof node === 'object' && ACCEPTANCE in (node as Json));
  const acceptance = holder ? (holder as Json)[ACCEPTANCE] : undefined;
  if (!acceptance || typeof acceptance !== 'object') return undefined;
  const { keywords, reason, version } = acceptance as { keywords?: unknown; reason?: unknown; version?: unknown };
  if (!Array.isArray(keywords) || !keywords.includes(keyword) || typeof reason !== 'string' || reason.trim() === '')
    return undefined;
  if (typeof version !== 'string' || version !== versionOf(revision) || version === baseVersion) return undefined;
  return reason.trim();
}

const versionOf = (doc: Json): string | undefined => {
  const info = doc.info as { version?: unknown } | undefined;
  return typeof info?.version === 'string' ? info.version : undefined;
};

/** A copy of a document without its `x-` members, at any depth. */
function withoutExtensions(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutExtensions);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => !k.startsWith('x-'))
      .map(([k, v]) => [k, withoutExtensions(v)]),
  );
}

/** The gate's core: compares one API's base and revision documents. */
export async function diffApi(api: ApiName, base: Json | undefined, revision: Json): Promise<ApiDiff> {
  const gated = GATE[api].gated;
  if (!base) return { api, gated, newApi: true, changes: [], breaking: [], accepted: [] };
  const own = extensionChanges(base, revision).map((x): Change => ({
    where: describeLocation(x.pointer),
    kind: 'modified',
    impact: x.verdict === 'breaking' ? 'major' : x.verdict === 'compatible' ? 'minor' : 'patch',
    breaking: x.verdict === 'breaking',
    message: x.message,
    rule: `x-extension ${x.extension}`,
    // The extension's own pointer: an acceptance names the extension as its keyword.
    pointer: x.pointer,
  }));
  // redocly does not read `x-` values, so when nothing else changed it has nothing to say. It
  // reads a single value only as `enum` and "or null" only as a `type` array: both documents are
  // compared in that one spelling (contract-diff-spelling.ts).
  const [plainBase, plainRevision] = [base, revision].map((d) => oneSpelling(d) as Json) as [Json, Json];
  const rated = isDeepStrictEqual(withoutExtensions(plainBase), withoutExtensions(plainRevision))
    ? []
    : classify(await redoclyDiff(plainBase, plainRevision));
  const changes = [...rated, ...own].map((c) => {
    const reason = c.breaking ? acceptedReason(revision, c.pointer, versionOf(base)) : undefined;
    return reason ? { ...c, accepted: reason } : c;
  });
  return {
    api,
    gated,
    newApi: false,
    changes,
    breaking: changes.filter((c) => c.breaking && !c.accepted),
    accepted: changes.filter((c) => c.accepted),
  };
}

/** True when no gated API has a breaking change. */
export const passes = (diffs: ApiDiff[]) => diffs.every((d) => !d.gated || d.breaking.length === 0);

/** Changes with the same message at the same pointer (a shared schema seen from many operations) become one line. */
function grouped(changes: Change[]): Array<{ message: string; rule: string | undefined; where: string[] }> {
  const byKey = new Map<string, { message: string; rule: string | undefined; where: string[] }>();
  for (const c of changes) {
    const key = `${c.message}\u0000${c.pointer}`;
    const entry = byKey.get(key) ?? { message: c.message, rule: c.rule, where: [] };
    if (!entry.where.includes(c.where)) entry.where.push(c.where);
    byKey.set(key, entry);
  }
  // Changes seen from an operation or webhook first, bare component changes last.
  return [...byKey.values()].sort((a, b) => Number(a.where[0]?.startsWith('#')) - Number(b.where[0]?.startsWith('#')));
}

const MAX_LINES = 40;
const whereText = (where: string[]) =>
  where.length <= 3
    ? where.map((w) => `\`${w}\``).join(', ')
    : `${where
        .slice(0, 3)
        .map((w) => `\`${w}\``)
        .join(', ')} and ${where.length - 3} more`;

export function renderMarkdown(diffs: ApiDiff[], baseLabel: string, revisionLabel = 'working tree'): string {
  const ok = passes(diffs);
  const lines: string[] = [];
  lines.push(`# Contract diff: \`${baseLabel}\` → ${revisionLabel}`, '');
  lines.push(
    ok ? '**✅ No breaking change to a published contract.**' : '**❌ Breaking changes to a published contract.**',
    '',
  );
  lines.push('| API | policy | breaking | other changes | result |', '|---|---|---:|---:|---|');
  for (const d of diffs) {
    const result = d.newApi
      ? 'new (no document at base)'
      : d.breaking.length === 0
        ? '✅ pass'
        : d.gated
          ? '❌ fail'
          : '⚠️ reported only';
    const breaking = grouped(d.breaking).length;
    const other = grouped(d.changes.filter((c) => !c.breaking)).length;
    const accepted = grouped(d.accepted).length;
    lines.push(
      `| ${d.api} | ${GATE[d.api].policy} | ${breaking}${accepted ? ` (+${accepted} accepted)` : ''} | ${other} | ${result} |`,
    );
  }
  for (const d of diffs) {
    if (d.newApi || d.changes.length === 0) continue;
    const breaking = grouped(d.breaking);
    const other = grouped(d.changes.filter((c) => !c.breaking));
    const accepted = grouped(d.accepted);
    lines.push('', `## ${d.api}`);
    if (breaking.length > 0) {
      lines.push(
        '',
        d.gated ? '### Breaking changes (fail the gate)' : '### Breaking changes (internal API: reported, not failing)',
        '',
      );
      for (const g of breaking.slice(0, MAX_LINES))
        lines.push(`- ${whereText(g.where)}: ${g.message}${g.rule ? ` _(${g.rule})_` : ''}`);
      if (breaking.length > MAX_LINES) lines.push(`- … and ${breaking.length - MAX_LINES} more`);
    }
    if (accepted.length > 0) {
      lines.push('', `### Breaking changes accepted in the spec (\`${ACCEPTANCE}\`)`, '');
      for (const g of accepted) {
        const reason = d.accepted.find((c) => c.message === g.message)?.accepted ?? '';
        lines.push(`- ${whereText(g.where)}: ${g.message}${g.rule ? ` _(${g.rule})_` : ''}. Accepted: ${reason}`);
      }
    }
    if (other.length > 0) {
      lines.push('', '### Compatible changes', '');
      for (const g of other.slice(0, MAX_LINES)) lines.push(`- ${whereText(g.where)}: ${g.message}`);
      if (other.length > MAX_LINES) lines.push(`- … and ${other.length - MAX_LINES} more`);
    }
  }
  if (!ok) {
    lines.push(
      '',
      'How to proceed: make the change additive (add a field or an operation beside the old one, keep the old one), ' +
        'or, for the partner API, publish it under a new version path (`/api/partner/v2`) and leave `/api/partner/v1` as it is.',
    );
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Base documents from git

async function git(args: string[], opts: { encoding?: 'buffer' } = {}): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd: ROOT,
    maxBuffer: 256 * 1024 * 1024,
    ...(opts.encoding ? { encoding: 'buffer' } : {}),
  });
  return stdout.toString();
}

async function existsAt(ref: string, path: string): Promise<boolean> {
  try {
    await git(['cat-file', '-e', `${ref}:${path}`]);
    return true;
  } catch {
    return false;
  }
}

/**
 * The bundled documents at a ref: the ref's spec/ bundled by the Redocly CLI (the source of
 * truth), or its generated/ JSON when the spec cannot be bundled; undefined where it has neither.
 */
export async function documentsAt(ref: string): Promise<{ docs: Partial<Record<ApiName, Json>>; notes: string[] }> {
  const notes: string[] = [];
  const docs: Partial<Record<ApiName, Json>> = {};
  const dir = await mkdtemp(join(tmpdir(), 'contract-base-'));
  try {
    const wanted: string[] = [];
    for (const p of ['spec', 'redocly.yaml', 'plugins']) if (await existsAt(ref, p)) wanted.push(p);
    if (wanted.includes('spec')) {
      const archive = join(dir, 'base.tar');
      await run('git', ['archive', '--format=tar', '-o', archive, ref, ...wanted], { cwd: ROOT });
      await run('tar', ['-xf', archive, '-C', dir]);
    }
    await Promise.all(
      APIS.map(async (api) => {
        if (wanted.includes('spec') && (await existsAt(ref, `spec/${api}/openapi.yaml`))) {
          const out = join(dir, `${api}.bundled.json`);
          try {
            await run(REDOCLY, ['bundle', `spec/${api}/openapi.yaml`, '--ext', 'json', '-o', out], {
              cwd: dir,
              env: QUIET_ENV,
              maxBuffer: 64 * 1024 * 1024,
            });
            docs[api] = JSON.parse(await readFile(out, 'utf8')) as Json;
            return;
          } catch (err) {
            notes.push(
              `${api}: bundling spec/${api} at ${ref} failed (${(err as Error).message.split('\n')[0]}); using generated/${api}.openapi.json at ${ref}`,
            );
          }
        }
        if (await existsAt(ref, `generated/${api}.openapi.json`)) {
          docs[api] = JSON.parse(await git(['show', `${ref}:generated/${api}.openapi.json`])) as Json;
        } else {
          notes.push(`${api}: no document at ${ref} (nothing published to break)`);
        }
      }),
    );
    return { docs, notes };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function contractDiff(
  ref: string,
): Promise<{ ok: boolean; markdown: string; diffs: ApiDiff[]; notes: string[] }> {
  const { docs, notes } = await documentsAt(ref);
  const diffs = await Promise.all(APIS.map(async (api) => diffApi(api, docs[api], await bundle(api))));
  let markdown = renderMarkdown(diffs, ref);
  if (notes.length > 0) markdown += `\n${notes.map((n) => `> ${n}`).join('\n')}\n`;
  return { ok: passes(diffs), markdown, diffs, notes };
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      base: { type: 'string' },
      output: { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || !values.base) {
    console[values.help ? 'log' : 'error'](
      'Usage: npm run contract:diff -- --base <git-ref> [--output report.md] [--json report.json]',
    );
    return values.help ? 0 : 2;
  }
  const ref = values.base;
  try {
    await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    console.error(`contract:diff: "${ref}" is not a commit of this repository (shallow clone? fetch it first)`);
    return 2;
  }
  const { ok, markdown, diffs } = await contractDiff(ref);
  console.log(markdown);
  if (values.output) await writeFile(values.output, markdown);
  if (values.json) await writeFile(values.json, `${JSON.stringify({ base: ref, ok, diffs }, null, 2)}\n`);
  if (process.env.GITHUB_STEP_SUMMARY) await appendFile(process.env.GITHUB_STEP_SUMMARY, markdown);
  return ok ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(2);
    },
  );
}
