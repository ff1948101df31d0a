// API coverage: what a run looked at, against the bundled documents. Each operation × each
// documented status code (`default` aside), each webhook type of the partner document, and each
// `x-` rule of the documents: exercised or not. Computed from the run's recorded exchanges (the
// request path matched to the operation's path template), the webhook deliveries the kit's
// receiver got, and the rules of the checks that ran; so an operator sees what a green run did
// not look at.
import type { Exchange } from './http.ts';
import type { CheckResult } from './runner.ts';
import type { SpecApi, SpecIndex } from './spec.ts';

export interface OperationCoverage {
  api: SpecApi;
  operationId: string;
  method: string;
  path: string;
  /** Each documented status code and how many answers had it. */
  statuses: Record<string, number>;
  /** Statuses answered that the operation does not document. */
  undocumented: Record<string, number>;
}

export interface Coverage {
  operations: OperationCoverage[];
  pairs: { exercised: number; total: number };
  operationsExercised: { exercised: number; total: number };
  webhooks: { types: Record<string, number>; exercised: number; total: number };
  rules: { names: Record<string, boolean>; exercised: number; total: number };
  /** Exchanges no documented operation matches (the kit's deliberate probes of unknown paths...). */
  unmatched: number;
}

const APIS: SpecApi[] = ['partner', 'public', 'admin'];

/** Which operation an exchange was sent to: admin by path, else partner, else public. */
function operationOf(
  spec: SpecIndex,
  e: Exchange,
  basePath: string,
): { api: SpecApi; operationId: string } | undefined {
  let path: string;
  try {
    path = new URL(e.url).pathname;
  } catch {
    return undefined;
  }
  if (basePath && path.startsWith(basePath)) path = path.slice(basePath.length) || '/';
  const order: SpecApi[] = e.operator || path.startsWith('/api/admin/') ? ['admin'] : ['partner', 'public'];
  for (const api of order) {
    const m = spec.contract.of(api).match(e.method, path);
    if (m.kind === 'found') return { api, operationId: m.operation.operationId };
  }
  return undefined;
}

/** Every `x-` extension name of a document (root, path items, operations, schemas), once. */
function extensionNames(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) extensionNames(n, out);
  else if (node && typeof node === 'object')
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) out.add(key);
      // The contents of an extension are its own, not further rules.
      else extensionNames(value, out);
    }
  return out;
}

export function computeCoverage(
  spec: SpecIndex,
  exchanges: readonly Exchange[],
  results: readonly CheckResult[],
  deliveries: ReadonlyMap<string, number>,
  baseUrl: string,
): Coverage {
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const byKey = new Map<string, OperationCoverage>();
  for (const op of spec.operations) {
    const statuses: Record<string, number> = {};
    for (const status of Object.keys(op.responses)) if (status !== 'default') statuses[status] = 0;
    byKey.set(`${op.api} ${op.operationId}`, {
      api: op.api,
      operationId: op.operationId,
      method: op.method,
      path: op.path,
      statuses,
      undocumented: {},
    });
  }
  let unmatched = 0;
  for (const e of exchanges) {
    const found = operationOf(spec, e, basePath);
    const entry = found && byKey.get(`${found.api} ${found.operationId}`);
    if (!entry) {
      unmatched++;
      continue;
    }
    const status = String(e.status);
    if (status in entry.statuses) entry.statuses[status]!++;
    else entry.undocumented[status] = (entry.undocumented[status] ?? 0) + 1;
  }
  const operations = [...byKey.values()];
  const pairs = operations.flatMap((o) => Object.values(o.statuses));
  const webhookTypes = Object.keys((spec.documents.partner.webhooks as Record<string, unknown> | undefined) ?? {});
  const types = Object.fromEntries(webhookTypes.map((t) => [t, deliveries.get(t) ?? 0]));
  // An x- rule is exercised when a check that ran (passed or failed) names it in its rules.
  const ran = results.filter((r) => r.status !== 'skipped').flatMap((r) => r.rules);
  const names: Record<string, boolean> = {};
  for (const api of APIS)
    for (const name of [...extensionNames(spec.documents[api])].sort())
      names[`${api}:${name}`] = ran.some(
        (rule) => rule.startsWith(`spec:${api}`) && new RegExp(`/${name}(/|$)`).test(rule),
      );
  return {
    operations,
    pairs: { exercised: pairs.filter((n) => n > 0).length, total: pairs.length },
    operationsExercised: {
      exercised: operations.filter((o) => Object.values(o.statuses).some((n) => n > 0)).length,
      total: operations.length,
    },
    webhooks: { types, exercised: Object.values(types).filter((n) => n > 0).length, total: webhookTypes.length },
    rules: {
      names,
      exercised: Object.values(names).filter(Boolean).length,
      total: Object.keys(names).length,
    },
    unmatched,
  };
}

const pct = (a: number, b: number) => (b === 0 ? '0' : ((100 * a) / b).toFixed(0));

/** The figures in one line each. */
export function coverageFigures(c: Coverage): string[] {
  return [
    `${c.pairs.exercised} of ${c.pairs.total} operation×status pairs exercised (${pct(c.pairs.exercised, c.pairs.total)}%)`,
    `${c.operationsExercised.exercised} of ${c.operationsExercised.total} operations exercised`,
    `${c.webhooks.exercised} of ${c.webhooks.total} webhook types delivered`,
    `${c.rules.exercised} of ${c.rules.total} x- rules exercised`,
  ];
}

/** The console section: the figures, then what was not exercised. */
export function coverageSummary(c: Coverage): string {
  const lines = ['', 'API coverage (against the bundled documents):', ...coverageFigures(c).map((l) => `  ${l}`)];
  const never = c.operations.filter((o) => Object.values(o.statuses).every((n) => n === 0));
  if (never.length > 0)
    lines.push(`  operations never exercised: ${never.map((o) => `${o.api} ${o.method} ${o.path}`).join(', ')}`);
  const silent = Object.entries(c.webhooks.types).filter(([, n]) => n === 0);
  if (silent.length > 0) lines.push(`  webhook types never delivered: ${silent.map(([t]) => t).join(', ')}`);
  const rules = Object.entries(c.rules.names).filter(([, v]) => !v);
  if (rules.length > 0) lines.push(`  x- rules no check that ran names: ${rules.map(([n]) => n).join(', ')}`);
  lines.push('  (every pair: --report json=F, "coverage"; or the HTML report)');
  return lines.join('\n');
}
