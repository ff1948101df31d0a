// Requirement IDs: every check has one, stable across releases of the kit, so baselines, CI
// dashboards and bug reports can name a rule. An ID never changes meaning: a check whose rule
// changes gets a new ID, and the old one is listed here as retired (never reused). `--list`
// prints the live ones and these.
import type { Family } from './context.ts';
import { EXTENSION_RULES, SEED_RULES, type ExtensionRule, type SeedRule } from './rule-coverage.ts';

export interface RetiredRequirement {
  id: string;
  /** What the check asserted. */
  title: string;
  /** The kit version that retired it. */
  retiredIn: string;
  reason: string;
  /** The requirement that covers its rule now, if any. */
  replacedBy?: string;
}

/** Retired requirement IDs (IDs were introduced in 0.2.0). */
export const RETIRED: RetiredRequirement[] = [
  {
    id: 'mock.public.get-open-id-configuration',
    title: 'the mock answers GET /.well-known/openid-configuration as documented',
    retiredIn: '0.2.0',
    reason:
      'OpenID Connect discovery is no longer part of the public document: RFC 8414 metadata is the one discovery document (getAuthorizationServerMetadata)',
  },
  {
    id: 'mock.public.get-jwks',
    title: 'the mock answers GET /.well-known/jwks.json as documented',
    retiredIn: '0.2.0',
    reason: 'the empty key set existed only for the OpenID discovery document, which is no longer served',
  },
  {
    id: 'public.oauth.metadata',
    title:
      'metadata: RFC 8414 members, the openid-configuration mirror and its empty key set, protected-resource documents',
    retiredIn: '0.2.0',
    reason: 'its rule changed: openid-configuration is no longer served (404)',
    replacedBy: 'public.oauth.metadata-rfc8414',
  },
];

export const ID_PATTERN = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/;

/** What is wrong with the IDs of a set of families: malformed, duplicated, reusing a retired one, without rules. */
export function idProblems(families: Family[], retired: RetiredRequirement[] = RETIRED): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  const gone = new Set(retired.map((r) => r.id));
  for (const family of families) {
    for (const check of family.checks) {
      const where = `${family.name} › ${check.name}`;
      if (!ID_PATTERN.test(check.id)) problems.push(`${where}: "${check.id}" is not a dotted lowercase ID`);
      const other = seen.get(check.id);
      if (other) problems.push(`${where}: ID ${check.id} is also used by ${other}`);
      seen.set(check.id, where);
      if (gone.has(check.id)) problems.push(`${where}: ID ${check.id} is retired and may not be reused`);
      if (check.rules.length === 0) problems.push(`${where}: names no rule`);
    }
  }
  return problems;
}

/** The listing `--list` prints: live requirements by family, the retired ones, then the rule coverage. */
export function listing(families: Family[], retired: RetiredRequirement[] = RETIRED, coverage = true): string {
  return coverage
    ? `${requirementListing(families, retired)}\n\n${coverageListing()}`
    : requirementListing(families, retired);
}

function requirementListing(families: Family[], retired: RetiredRequirement[]): string {
  const lines: string[] = [];
  const width = Math.max(...families.flatMap((f) => f.checks.map((c) => c.id.length)), 10);
  for (const f of families) {
    lines.push(`${f.name} (${f.surface}${f.needs.length ? `; needs ${f.needs.join(', ')}` : ''}): ${f.description}`);
    for (const c of f.checks) {
      lines.push(`  ${c.id.padEnd(width)}  ${c.name}${c.needs?.length ? ` [needs ${c.needs.join(', ')}]` : ''}`);
      lines.push(`  ${''.padEnd(width)}    rules: ${c.rules.join('; ')}`);
    }
    lines.push('');
  }
  lines.push(`retired (${retired.length}):${retired.length === 0 ? ' none' : ''}`);
  for (const r of retired)
    lines.push(
      `  ${r.id.padEnd(width)}  retired in ${r.retiredIn}: ${r.reason}${r.replacedBy ? ` (now ${r.replacedBy})` : ''} [was: ${r.title}]`,
    );
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Rule coverage (conformance/rule-coverage.ts): which requirement exercises each rule.

const verdict = (r: { requirements: string[]; gap?: string; excluded?: string }, code: (id: string) => string) =>
  r.gap !== undefined
    ? `gap: ${r.gap}`
    : r.excluded !== undefined
      ? `excluded: ${r.excluded}`
      : r.requirements.map(code).join(', ');

const extensionName = (r: ExtensionRule) => `${r.api} ${r.extension}`;

/** Counts of the rules: exercised, gaps, exclusions. */
export function coverageCounts(): { rules: number; exercised: number; gaps: number; excluded: number } {
  const all = [...EXTENSION_RULES, ...SEED_RULES];
  const gaps = all.filter((r) => r.gap !== undefined).length;
  const excluded = all.filter((r) => r.excluded !== undefined).length;
  return { rules: all.length, exercised: all.length - gaps - excluded, gaps, excluded };
}

function summary(): string {
  const c = coverageCounts();
  return `${c.rules} rules (${EXTENSION_RULES.length} x- extensions of the three documents, ${SEED_RULES.length} seed sentences): ${c.exercised} exercised, ${c.gaps} gaps, ${c.excluded} excluded`;
}

/** The rule coverage as `--list` prints it. */
export function coverageListing(): string {
  const lines = [`rule coverage: ${summary()}`, '', 'x- extensions:'];
  for (const r of EXTENSION_RULES) lines.push(`  ${extensionName(r)}: ${verdict(r, (id) => id)}`);
  lines.push('', 'seed sentences (MUST-like):');
  for (const r of SEED_RULES) lines.push(`  ${r.section}: "${r.rule}"`, `      ${verdict(r, (id) => id)}`);
  return lines.join('\n');
}

/** The rule coverage as the README shows it (between its rule-coverage markers). */
export function coverageMarkdown(): string {
  const code = (id: string) => `\`${id}\``;
  const seed = (r: SeedRule) => `- ${r.section.replace(/^seed:/, '')}: "${r.rule}": ${verdict(r, code)}`;
  return [
    `${summary()}.`,
    '',
    '`x-` extensions:',
    '',
    ...EXTENSION_RULES.map((r) => `- ${r.api} \`${r.extension}\`: ${verdict(r, code)}`),
    '',
    'Seed sentences with a MUST-like meaning:',
    '',
    ...SEED_RULES.map(seed),
  ].join('\n');
}
