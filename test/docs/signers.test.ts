// The per-language code samples of the partner reference: each is its language's template
// (examples/signing/<language>/snippet.<ext>.tmpl) filled with the operation's method, path,
// query and body from the partner document, and a docs build without a language still works.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDocumentSources, REPO_ROOT } from '../../server/docs/index.ts';
import { loadSigners, renderSnippet, type SampleCall } from '../../server/docs/signers.ts';
import { buildSite } from '../../server/docs/site.ts';

const sources = loadDocumentSources();
const partner = JSON.parse(readFileSync(join(REPO_ROOT, 'generated/partner.openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, unknown>>;
};
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The operation's section of a reference page's Markdown, up to the next operation. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n### ${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const end = markdown.indexOf('\n### ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), 'docs-signers-'));
  temps.push(dir);
  return dir;
}

describe('renderSnippet', () => {
  const post: SampleCall = {
    method: 'POST',
    path: '/api/partner/v1/orders',
    query: 'b=2&a=1',
    body: `{"ref":"o'brien \\"x\\""}`,
    idempotency: true,
  };
  it('fills names, applies each quoting and keeps the blocks that apply', () => {
    const template =
      '{{method}} {{target}}|{{body|json}}|{{body|sq}}|{{body|shell}}|{{#body}}B{{/body}}{{^body}}none{{/body}}|{{#idempotency}}K{{/idempotency}}';
    expect(renderSnippet(template, post)).toBe(
      `POST /api/partner/v1/orders?b=2&a=1|"{\\"ref\\":\\"o'brien \\\\\\"x\\\\\\"\\"}"|'{"ref":"o\\'brien \\\\"x\\\\""}'|'{"ref":"o'\\''brien \\"x\\""}'|B|K`,
    );
    const get = { ...post, method: 'GET', query: '', body: undefined, idempotency: false };
    expect(renderSnippet(template, get)).toBe(`GET /api/partner/v1/orders|""|''|''|none|`);
  });
  it('refuses a template with an unknown name, flag or filter (a typo fails the build, not the page)', () => {
    expect(() => renderSnippet('{{methd}}', post)).toThrow(/unknown name methd/);
    expect(() => renderSnippet('{{#bdy}}x{{/bdy}}', post)).toThrow(/unknown flag bdy/);
    expect(() => renderSnippet('{{body|yaml}}', post)).toThrow(/unknown filter yaml/);
  });
});

describe('the code samples of the partner reference', () => {
  const site = buildSite(sources);
  const markdown = site.pages.get('partner-api')!.markdown;
  const languages = sources.signers.map((s) => s.language);

  it('finds the Go and Java signers (and any other language folder with a template)', () => {
    expect(languages).toEqual(expect.arrayContaining(['go', 'java']));
  });

  it('gives every partner operation a curl sample and one sample per language, naming its method and path', () => {
    let operations = 0;
    for (const [path, item] of Object.entries(partner.paths)) {
      for (const method of METHODS.filter((m) => item[m])) {
        operations++;
        const text = section(markdown, `${method.toUpperCase()} ${path}`);
        expect(text, `${method} ${path}`).toContain('#### Code samples');
        expect(text).toMatch(new RegExp(`domain-sales request ${method.toUpperCase()} '`));
        const concrete = path.replace(/\{[^}]+\}/g, '[^"\'/]+');
        for (const s of sources.signers) {
          const fence = new RegExp(`\`{3,}${s.fence}\\n[\\s\\S]*?"${method.toUpperCase()}"[\\s\\S]*?${concrete}`);
          expect(text, `${s.language} sample of ${method} ${path}`).toMatch(fence);
          expect(text).toContain(`(/docs/signing-${s.language}.md)`);
        }
      }
    }
    expect(operations).toBeGreaterThan(20);
  });

  it('puts the exact body bytes of the example and the Idempotency-Key in the POST /orders samples', () => {
    const text = section(markdown, 'POST /api/partner/v1/orders');
    const op = partner.paths['/api/partner/v1/orders']!.post as {
      requestBody: { content: { 'application/json': { examples: Record<string, { value: unknown }> } } };
    };
    const example = Object.values(op.requestBody.content['application/json'].examples)[0]!.value;
    // Go and Java both take the body as a JSON string literal.
    for (const language of ['go', 'java']) expect(text, language).toContain(JSON.stringify(JSON.stringify(example)));
    expect(text.match(/Idempotency-Key/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it('takes each sample from the template beside the signer: no second copy', () => {
    const root = tempRoot();
    for (const dir of ['generated', 'docs', 'spec', 'client', 'server', 'conformance'])
      cpSync(join(REPO_ROOT, dir), join(root, dir), {
        recursive: true,
        filter: (src) => !src.includes('node_modules'),
      });
    mkdirSync(join(root, 'examples/signing/go'), { recursive: true });
    writeFileSync(join(root, 'examples/signing/go/README.md'), '# Go\n');
    writeFileSync(join(root, 'examples/signing/go/snippet.go.tmpl'), 'CHANGED-TEMPLATE {{method}} {{path}}\n');
    const changed = buildSite(loadDocumentSources(root)).pages.get('partner-api')!.markdown;
    expect(section(changed, 'GET /api/partner/v1/pricing')).toContain('CHANGED-TEMPLATE GET /api/partner/v1/pricing');
    expect(changed).not.toContain('```java');
  });

  it('builds without any signer folder: curl samples only, no signer pages', () => {
    const site = buildSite({ ...sources, signers: [] });
    const text = section(site.pages.get('partner-api')!.markdown, 'GET /api/partner/v1/pricing');
    expect(text).toContain("domain-sales request GET '/api/partner/v1/pricing?domain=");
    expect(text).not.toMatch(/```(go|java)/);
    expect([...site.pages.keys()].some((k) => k.startsWith('signing-'))).toBe(false);
    expect(loadSigners(tempRoot())).toEqual([]);
  });

  it('gives each signer a page with its README and every source file, linked from the signing guide', () => {
    for (const s of sources.signers) {
      const page = site.pages.get(`signing-${s.language}`)!;
      for (const file of s.files) expect(page.markdown).toContain(file.text.trimEnd());
      expect(site.pages.get('signing')!.markdown).toContain(`(/docs/signing-${s.language}.md)`);
    }
  });
});
