// Baselines: a deployment adopting the kit with known gaps lists the requirement IDs it fails
// today. A listed check that fails is a known failure and does not fail the run; a check that
// fails and is not listed does; a listed check that now passes is stale and fails the run too,
// so the file shrinks as the gaps close. A baseline is the JSON report of a run (its failed
// checks) or a list of IDs with reasons, one per line (what --write-baseline writes).
import { ConfigError } from './context.ts';
import { RETIRED } from './requirements.ts';
import type { CheckResult } from './runner.ts';

export interface BaselineEntry {
  id: string;
  reason: string;
}

/** Parses either accepted form; `known` is every live requirement ID (an unknown one is a configuration error). */
export function parseBaseline(text: string, source: string, known: ReadonlySet<string>): BaselineEntry[] {
  const trimmed = text.trim();
  let entries: BaselineEntry[];
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (err) {
      throw new ConfigError(
        `--baseline ${source}: not valid JSON (${err instanceof Error ? err.message : String(err)})`,
      );
    }
    entries = fromJson(json, source);
  } else {
    entries = [];
    for (const [i, raw] of text.split('\n').entries()) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const m = /^(\S+)(?:\s+(.*))?$/.exec(line);
      if (!m?.[1]) continue;
      if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(m[1]))
        throw new ConfigError(`--baseline ${source}:${i + 1}: "${m[1]}" is not a requirement ID`);
      entries.push({ id: m[1], reason: (m[2] ?? '').trim() });
    }
  }
  const retired = new Set(RETIRED.map((r) => r.id));
  const unknown = entries.filter((e) => !known.has(e.id) && !retired.has(e.id)).map((e) => e.id);
  if (unknown.length > 0)
    throw new ConfigError(
      `--baseline ${source}: unknown requirement IDs ${unknown.join(', ')} (npm run conformance -- --list shows them)`,
    );
  const seen = new Set<string>();
  return entries.filter((e) => !seen.has(e.id) && seen.add(e.id));
}

function fromJson(json: unknown, source: string): BaselineEntry[] {
  // The JSON report of a run: its failed (or known-failed) checks.
  if (json && typeof json === 'object' && Array.isArray((json as { checks?: unknown }).checks)) {
    return (json as { checks: Array<Record<string, unknown>> }).checks
      .filter((c) => c.status === 'failed' && typeof c.id === 'string')
      .map((c) => ({ id: String(c.id), reason: firstLine(c.message) }));
  }
  const list = Array.isArray(json) ? json : (json as { baseline?: unknown } | null)?.baseline;
  if (!Array.isArray(list))
    throw new ConfigError(
      `--baseline ${source}: expected a JSON report (with "checks"), a list of IDs or of { "id", "reason" }`,
    );
  return list.map((item, i) => {
    if (typeof item === 'string') return { id: item, reason: '' };
    if (item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string')
      return { id: (item as { id: string }).id, reason: String((item as { reason?: unknown }).reason ?? '') };
    throw new ConfigError(`--baseline ${source}: entry ${i + 1} is neither an ID nor { "id", "reason" }`);
  });
}

const firstLine = (message: unknown) =>
  typeof message === 'string' ? (message.split('\n')[0] ?? '').slice(0, 200) : '';

export interface BaselineOutcome {
  results: CheckResult[];
  /** Entries naming retired requirements (to delete from the file): stale too. */
  retired: Array<BaselineEntry & { replacedBy?: string }>;
}

/**
 * Marks the results a baseline lists: a failure becomes a known failure, a pass a stale entry.
 * Checks the run did not select, or skipped, are left as they are.
 */
export function applyBaseline(results: CheckResult[], entries: BaselineEntry[]): BaselineOutcome {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const out = results.map((r) => {
    const entry = byId.get(r.id);
    if (!entry || r.status === 'skipped') return r;
    return {
      ...r,
      baseline: { reason: entry.reason, verdict: r.status === 'failed' ? ('known' as const) : ('stale' as const) },
    };
  });
  const retired = entries.flatMap((e) => {
    const r = RETIRED.find((x) => x.id === e.id);
    return r ? [{ ...e, ...(r.replacedBy ? { replacedBy: r.replacedBy } : {}) }] : [];
  });
  return { results: out, retired };
}

/** Whether the run fails: a failure no baseline lists, or a stale baseline entry. */
export function runFails(results: CheckResult[], retired: unknown[] = []): boolean {
  return (
    retired.length > 0 ||
    results.some((r) => (r.status === 'failed' && r.baseline?.verdict !== 'known') || r.baseline?.verdict === 'stale')
  );
}

/** The list form: one failed check per line, with the first line of its failure as the reason. */
export function writeBaseline(results: CheckResult[], meta: { baseUrl: string; date: string }): string {
  const failed = results.filter((r) => r.status === 'failed');
  const width = Math.max(0, ...failed.map((r) => r.id.length));
  return [
    `# Conformance baseline: known failures of ${meta.baseUrl} on ${meta.date}.`,
    '# A listed check that fails does not fail the run; one that passes again fails it as stale:',
    '# delete its line. Format: <requirement ID> <reason>.',
    ...failed.map((r) => `${r.id.padEnd(width)}  ${r.baseline?.reason || firstLine(r.message)}`),
    '',
  ].join('\n');
}
