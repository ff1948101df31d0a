// The pure parts of the docs: Markdown rendering (raw HTML never passes through), the link
// rewriting between HTML pages and their Markdown twins, the page shell, and llms.txt.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../server/docs/catalog.ts';
import { loadDocumentSources } from '../../server/docs/index.ts';
import { renderMarkdown } from '../../server/docs/markdown.ts';
import { absoluteLinks, buildSite, docsHtml, stripRelativeLinks, twinLinks } from '../../server/docs/site.ts';

const site = buildSite(loadDocumentSources());

// The reference signers' pages come after the catalog's: one per folder of examples/signing/ that
// has a README.md and a snippet template (which languages exist is read, not assumed).
const SIGNING_DIR = fileURLToPath(new URL('../../examples/signing/', import.meta.url));
const SIGNER_SLUGS = [...site.pages.keys()].slice(CATALOG.length);
const SIGNER_DIRS = existsSync(SIGNING_DIR)
  ? readdirSync(SIGNING_DIR).filter(
      (d) =>
        existsSync(join(SIGNING_DIR, d, 'README.md')) &&
        readdirSync(join(SIGNING_DIR, d)).some((f) => /^snippet\.[a-z0-9]+\.tmpl$/.test(f)),
    )
  : [];
it('has a page for each reference signer with a template', () => {
  expect([...SIGNER_SLUGS].sort()).toEqual(SIGNER_DIRS.map((d) => `signing-${d}`).sort());
});

describe('renderMarkdown', () => {
  it('shows raw HTML as text instead of passing it through', () => {
    const html = renderMarkdown('Hello <script>alert(1)</script> and <base>/mcp\n\n<div onclick="x()">block</div>\n');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<div');
    expect(html).toContain('&#60;script&#62;');
    expect(html).toContain('&#60;base&#62;/mcp');
  });

  it('gives headings unique ids', () => {
    const html = renderMarkdown('# A b\n\n## Parameters\n\ntext\n\n## Parameters\n');
    expect(html).toContain('<h1 id="a-b">A b</h1>');
    expect(html).toContain('<h2 id="parameters">');
    expect(html).toContain('<h2 id="parameters-2">');
  });
});

describe('link rewriting', () => {
  it('points docs links of a Markdown twin at Markdown', () => {
    expect(
      twinLinks('[a](/docs) [b](/docs/oauth) [c](/docs/rate-limits#the-headers) [d](/openapi.json) [e](/docs.md)'),
    ).toBe('[a](/docs.md) [b](/docs/oauth.md) [c](/docs/rate-limits.md#the-headers) [d](/openapi.json) [e](/docs.md)');
  });

  it('makes root-relative links absolute and drops links into the repository', () => {
    expect(absoluteLinks('[a](/docs.md) and [b](https://x.example/y)', 'https://api.example.com')).toBe(
      '[a](https://api.example.com/docs.md) and [b](https://x.example/y)',
    );
    expect(stripRelativeLinks('see [`spec/vectors/signing.json`](../vectors/signing.json) or [x](#y)')).toBe(
      'see `spec/vectors/signing.json` or [x](#y)',
    );
  });

  it('serves the signing guide without its repository-relative links', () => {
    const signing = site.pages.get('signing');
    expect(signing?.markdown).toContain('[/docs/vectors/signing.json](/docs/vectors/signing.json)');
    expect(signing?.markdown).not.toContain('](../');
  });
});

describe('the page shell', () => {
  it('links the Markdown twin, escapes the title and lets the docs be indexed', () => {
    const html = docsHtml('A <b> & "c"', '/docs/x.md', '<h1>x</h1>');
    expect(html).toContain('<link rel="alternate" type="text/markdown" href="/docs/x.md">');
    expect(html).toContain('<title>A &#60;b&#62; &#38; &#34;c&#34;');
    expect(html).not.toContain('noindex');
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
  });
});

describe('the site', () => {
  it('has one page per catalog entry and per reference signer, each with Markdown and HTML of the same title', () => {
    expect([...site.pages.keys()]).toEqual([...CATALOG.map((e) => e.slug), ...SIGNER_SLUGS]);
    for (const page of [site.index, ...site.pages.values()]) {
      expect(page.markdown.startsWith(`# ${page.title}\n`), page.slug).toBe(true);
      expect(page.html, page.slug).toContain(`>${page.title.replace(/&/g, '&amp;')}</h1>`);
    }
  });

  it('writes an llms.txt that lists every Markdown page with an absolute URL', () => {
    const text = site.llmsTxt('https://api.example.com');
    const lines = text.split('\n');
    expect(lines[0]).toBe('# Domain Sales API');
    expect(lines[2]?.startsWith('> ')).toBe(true);
    const urls = [...text.matchAll(/\]\((https:\/\/api\.example\.com\/docs[^)]*\.md)\)/g)].map((m) => m[1]);
    expect(urls).toEqual([
      'https://api.example.com/docs.md',
      ...CATALOG.filter((e) => e.kind === 'guide').map((e) => `https://api.example.com/docs/${e.slug}.md`),
      ...SIGNER_SLUGS.map((slug) => `https://api.example.com/docs/${slug}.md`),
      ...CATALOG.filter((e) => e.kind === 'reference').map((e) => `https://api.example.com/docs/${e.slug}.md`),
    ]);
    for (const line of lines.filter((l) => l.startsWith('- ')))
      expect(line).toMatch(/^- \[[^\]]+\]\(https:\/\/api\.example\.com\/[^)]+\)(: .+)?$/);
  });

  it('finishes Markdown per base URL', () => {
    const a = site.markdown(site.index, 'https://a.example');
    const b = site.markdown(site.index, 'http://127.0.0.1:8080');
    expect(a).toContain('](https://a.example/docs/oauth.md)');
    expect(b).toContain('](http://127.0.0.1:8080/docs/oauth.md)');
    expect(a).not.toContain('](/');
  });
});
