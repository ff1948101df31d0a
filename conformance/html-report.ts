// `--report html=FILE`: one self-contained page (inline CSS, no script, no request to anywhere):
// the run's families and checks with their requirement IDs, rules and durations, and each
// failure with its message, the exchanges it names and the commands that rerun and replay it.
import { describeExchange } from './http.ts';
import { counts, outcomeOf, rerunCommand, summaryByFamily, type Outcome } from './report.ts';
import { coverageFigures, type Coverage } from './coverage.ts';
import type { CheckResult } from './runner.ts';

export interface HtmlMeta {
  baseUrl: string;
  seed: number;
  numRuns: number;
  seconds: number;
  date: string;
  /** Where the run wrote its failure bundle, for the replay commands. */
  bundleDir?: string;
  /** How the kit was invoked (invocation.ts), for the rerun lines. */
  rerun?: string;
  /** What the run exercised of the contract. */
  coverage?: Coverage;
}

const esc = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const LABEL: Record<Outcome, string> = {
  passed: 'passed',
  failed: 'FAILED',
  known: 'known failure',
  stale: 'stale baseline',
  skipped: 'skipped',
};

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1f24;background:#fff}
header{padding:20px 28px;background:#f3f5f8;border-bottom:1px solid #d8dde4}
h1{font-size:20px;margin:0 0 6px}h2{font-size:17px;margin:28px 0 8px}
main{padding:0 28px 40px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #e4e7eb;vertical-align:top}
th{background:#f7f8fa;font-weight:600}
.status{font-weight:600;white-space:nowrap}.passed{color:#1a7f37}.failed,.stale{color:#b42318}.known{color:#9a6700}.skipped{color:#57606a}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:#f6f8fa;border:1px solid #e4e7eb;padding:10px;overflow-x:auto;white-space:pre-wrap;word-break:break-word}
.rules{color:#57606a;font-size:12px}.id{white-space:nowrap}
details{margin:6px 0}summary{cursor:pointer;font-weight:600}
.totals span{margin-right:16px}
`;

function failureBlock(r: CheckResult, meta: HtmlMeta): string {
  const rerun = rerunCommand(meta.rerun, meta, r);
  const replay = meta.bundleDir
    ? `node ${meta.bundleDir}/replay.mjs --base-url ${meta.baseUrl} --check ${r.id}`
    : `${rerun} --report bundle=DIR, then node DIR/replay.mjs --base-url URL --check ${r.id}`;
  const exchanges = (r.evidence ?? [])
    .map(
      (e, i) =>
        `<details class="exchange"${i === (r.evidence?.length ?? 0) - 1 ? ' open' : ''}><summary>${esc(`${e.method} ${e.url} → ${e.status}`)}</summary><pre>${esc(describeExchange(e))}</pre></details>`,
    )
    .join('');
  return `<details class="failure" open><summary>what failed</summary>
<pre class="message">${esc(r.message ?? '')}</pre>
${r.counterexample ? `<p>counterexample: <code>${esc(r.counterexample)}</code></p>` : ''}
${exchanges ? `<div class="exchanges">${exchanges}</div>` : ''}
<p>rerun: <code class="rerun">${esc(rerun)}</code></p>
<p>replay: <code class="replay">${esc(replay)}</code></p>
</details>`;
}

function row(r: CheckResult, meta: HtmlMeta): string {
  const outcome = outcomeOf(r);
  const note =
    outcome === 'skipped'
      ? `<div class="note">${esc(r.message ?? '')}</div>`
      : outcome === 'known'
        ? `<div class="note">baseline: ${esc(r.baseline?.reason ?? '')}</div>`
        : outcome === 'stale'
          ? `<div class="note">listed in the baseline (${esc(r.baseline?.reason ?? '')}) but passes now: delete it from the baseline</div>`
          : '';
  const failure = r.status === 'failed' ? failureBlock(r, meta) : '';
  return `<tr class="check ${outcome}" id="${esc(r.id)}" data-id="${esc(r.id)}" data-status="${outcome}"><td class="status ${outcome}">${LABEL[outcome]}</td><td class="id"><code>${esc(r.id)}</code></td><td><div class="title">${esc(r.check)}</div><div class="rules">${r.rules.map((x) => esc(x)).join('<br>')}</div>${note}${failure}</td><td>${(r.ms / 1000).toFixed(2)} s${r.waitedMs ? `<div class="rules">waited ${(r.waitedMs / 1000).toFixed(1)} s</div>` : ''}</td></tr>`;
}

/** The API coverage section: the figures, then every operation × status, webhook type and x- rule. */
function coverageSection(c: Coverage | undefined): string {
  if (!c) return '';
  const cell = (n: number) => (n > 0 ? `<span class="passed">${n}</span>` : '<span class="failed">0</span>');
  const rows = c.operations
    .map(
      (o) =>
        `<tr class="op" data-op="${esc(`${o.api} ${o.method} ${o.path}`)}"><td>${esc(o.api)}</td><td><code>${esc(`${o.method} ${o.path}`)}</code></td><td>${Object.entries(
          o.statuses,
        )
          .map(([s, n]) => `<span class="pair" data-status="${esc(s)}" data-count="${n}">${esc(s)}: ${cell(n)}</span>`)
          .join(' · ')}${
          Object.keys(o.undocumented).length
            ? `<div class="rules">undocumented: ${Object.entries(o.undocumented)
                .map(([s, n]) => `${esc(s)} (${n})`)
                .join(', ')}</div>`
            : ''
        }</td></tr>`,
    )
    .join('');
  const hooks = Object.entries(c.webhooks.types)
    .map(
      ([t, n]) =>
        `<tr class="webhook" data-type="${esc(t)}" data-count="${n}"><td><code>${esc(t)}</code></td><td>${cell(n)}</td></tr>`,
    )
    .join('');
  const rules = Object.entries(c.rules.names)
    .map(
      ([r, v]) =>
        `<tr class="xrule" data-rule="${esc(r)}"><td><code>${esc(r)}</code></td><td>${v ? '<span class="passed">exercised</span>' : '<span class="failed">not exercised</span>'}</td></tr>`,
    )
    .join('');
  return `<section id="coverage"><h2>API coverage</h2>
<ul class="figures">${coverageFigures(c)
    .map((l) => `<li>${esc(l)}</li>`)
    .join('')}</ul>
<details open><summary>operations × documented status codes (answers seen)</summary><table><thead><tr><th>api</th><th>operation</th><th>statuses</th></tr></thead><tbody>${rows}</tbody></table></details>
<details><summary>webhook types (deliveries to the kit's receiver)</summary><table><tbody>${hooks}</tbody></table></details>
<details><summary>x- rules (named by a check that ran)</summary><table><tbody>${rules}</tbody></table></details></section>`;
}

export function htmlReport(results: CheckResult[], meta: HtmlMeta): string {
  const c = counts(results);
  const families = summaryByFamily(results);
  const summary = families
    .map(
      (f) =>
        `<tr><td><a href="#family-${esc(f.family)}">${esc(f.family)}</a></td><td>${f.passed}</td><td>${f.failed}</td><td>${f.known}</td><td>${f.stale}</td><td>${f.skipped}</td></tr>`,
    )
    .join('');
  const sections = families
    .map((f) => {
      const rows = results
        .filter((r) => r.family === f.family)
        .map((r) => row(r, meta))
        .join('\n');
      return `<section class="family" id="family-${esc(f.family)}"><h2>${esc(f.family)}</h2><table><thead><tr><th>result</th><th>requirement</th><th>check and rules</th><th>time</th></tr></thead><tbody>${rows}</tbody></table></section>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Conformance report: ${esc(meta.baseUrl)}</title><style>${STYLE}</style></head>
<body><header><h1>Conformance report</h1>
<div>${esc(meta.baseUrl)} · ${esc(meta.date)} · seed ${meta.seed} · ${meta.numRuns} runs per property · ${meta.seconds.toFixed(1)} s</div>
<div class="totals"><span class="passed" id="count-passed">${c.passed} passed</span><span class="failed" id="count-failed">${c.failed} failed</span><span class="known">${c.known} known</span><span class="stale">${c.stale} stale</span><span class="skipped" id="count-skipped">${c.skipped} skipped</span></div></header>
<main><h2>Families</h2><table class="summary"><thead><tr><th>family</th><th>passed</th><th>failed</th><th>known</th><th>stale</th><th>skipped</th></tr></thead><tbody>${summary}</tbody></table>
${sections}
${coverageSection(meta.coverage)}</main></body></html>
`;
}
