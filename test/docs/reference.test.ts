// The generated reference pages: every operation of each bundled document is on its page, with
// the facts the document states (computed here from the document, not from the generator).
import { describe, expect, it } from 'vitest';
import { REFERENCES } from '../../server/docs/catalog.ts';
import { loadDocumentSources } from '../../server/docs/index.ts';
import { buildSite } from '../../server/docs/site.ts';
import { arr, deref, documents, obj, operations, type Api } from './support.ts';

const site = buildSite(loadDocumentSources());
const pageOf = (api: Api) => {
  const entry = REFERENCES.find((r) => r.api === api);
  const page = entry ? site.pages.get(entry.slug) : undefined;
  if (!page) throw new Error(`no reference page for ${api}`);
  return page;
};

/** The Markdown of one operation: from its `### METHOD path` heading to the next `###` or `##`. */
function operationSection(markdown: string, method: string, path: string): string {
  const heading = `### ${method} ${path}\n`;
  const start = markdown.indexOf(heading);
  if (start < 0) return '';
  const rest = markdown.slice(start + heading.length);
  const end = rest.search(/\n#{2,3} /);
  return rest.slice(0, end < 0 ? undefined : end);
}

describe.each(['public', 'partner', 'admin'] as const)('the %s reference page', (api) => {
  const doc = documents[api];
  const page = pageOf(api);
  const ops = operations(doc);

  it('has every operation of the document, once', () => {
    expect(ops.length).toBeGreaterThan(5);
    for (const { method, path } of ops) {
      const count = page.markdown.split(`\n### ${method} ${path}\n`).length - 1;
      expect(count, `${method} ${path}`).toBe(1);
    }
    expect(page.markdown.match(/^### (GET|PUT|POST|DELETE|PATCH) /gm)?.length).toBe(ops.length);
  });

  it("states each operation's id, summary, scopes, rate limit, responses and their error codes", () => {
    const classes = obj(doc['x-rate-limit-classes']);
    for (const { method, path, op } of ops) {
      const text = operationSection(page.markdown, method, path);
      const where = `${method} ${path}`;
      expect(text, where).toContain(`\`${String(op.operationId)}\``);
      if (typeof op.summary === 'string') expect(text, where).toContain(op.summary);
      for (const scope of arr(op['x-scopes']))
        expect(text, where).toMatch(new RegExp(`\\| Scopes \\|[^\\n]*\`${String(scope)}\``));
      const cls = obj(classes[String(op['x-rate-limit'])]);
      if (typeof cls.quota === 'number')
        expect(text, where).toContain(
          `| Rate limit | \`${String(op['x-rate-limit'])}\`: ${cls.quota} requests per ${String(cls['window-seconds'])} s |`,
        );
      for (const [status, raw] of Object.entries(obj(op.responses))) {
        const row = text.split('\n').find((l) => l.startsWith(`| ${status} |`));
        expect(row, `${where} ${status}`).toBeDefined();
        for (const code of arr(deref(doc, raw)['x-error-codes']))
          expect(row, `${where} ${status}`).toContain(`\`${String(code)}\``);
      }
      for (const p of [...arr(op.parameters)].map((x) => deref(doc, x)))
        expect(text, where).toContain(`| \`${String(p.name)}\` | ${String(p.in)} |`);
      if (op.requestBody) {
        const bodyRef = Object.values(obj(deref(doc, op.requestBody).content))
          .map((m) => obj(obj(m).schema).$ref)
          .find((r) => typeof r === 'string');
        if (typeof bodyRef === 'string') expect(text, where).toContain(`[${bodyRef.split('/').pop()}]`);
      }
    }
  });

  it('describes every schema and every webhook of the document', () => {
    for (const name of Object.keys(obj(obj(doc.components).schemas)))
      expect(page.markdown).toContain(`\n### Schema ${name}\n`);
    for (const name of Object.keys(obj(doc.webhooks))) expect(page.markdown).toContain(`\n### Webhook ${name}\n`);
  });

  it('has HTML whose in-page links all land on an element of the page, with unique ids', () => {
    const ids = [...page.html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
    const targets = new Set(ids);
    const anchors = [...page.html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(anchors.length).toBeGreaterThan(10);
    for (const anchor of anchors) expect(targets.has(anchor), anchor).toBe(true);
  });
});
