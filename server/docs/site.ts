// The developer docs as a whole, built once at start-up: every page as Markdown (the source of
// truth) and as HTML rendered from it, the start page, and llms.txt. Pure: documents and guide
// texts in, pages out. Markdown twins and llms.txt carry absolute URLs, which depend on the
// deployment's base URL, so those are finished per base URL (a string substitution, cached).
import { escapeHtml, htmlPage } from '../public/html.ts';
import { CATALOG, type ApiName, type CatalogEntry } from './catalog.ts';
import { renderMarkdown } from './markdown.ts';
import { ApiContract } from '../contract/index.ts';
import { referenceMarkdown } from './reference.ts';
import {
  sampleCall,
  samplesMarkdown,
  signerLabel,
  signerPageMarkdown,
  signerSlug,
  type SignerSource,
} from './signers.ts';

export const SITE_NAME = 'Domain Sales API';
export const SITE_SUMMARY =
  'Domain availability, WHOIS/RDAP, TLD pricing and requirements, aftermarket listings; OAuth 2.1 for real prices; an MCP server; and the signed partner API for selling domains.';

export interface DocsPage {
  /** `''` for the start page (`/docs`), else the slug (`/docs/<slug>`). */
  slug: string;
  title: string;
  summary: string;
  kind: 'index' | 'reference' | 'guide';
  /** The Markdown twin with root-relative links (`/docs/oauth.md`); see DocsSite.markdown for the served form. */
  markdown: string;
  html: string;
}

export interface DocsSite {
  index: DocsPage;
  /** Every page but the start page, in catalog order. */
  pages: ReadonlyMap<string, DocsPage>;
  /** The served Markdown of a page, links absolute against `baseUrl`, snippets naming it. */
  markdown(page: DocsPage, baseUrl: string): string;
  /** The served HTML of a page, its snippets naming `baseUrl`. */
  html(page: DocsPage, baseUrl: string): string;
  llmsTxt(baseUrl: string): string;
}

export interface SiteInput {
  documents: Record<ApiName, Record<string, unknown>>;
  /** Guide slug → its Markdown source. */
  guides: ReadonlyMap<string, string>;
  /** The reference signers found in examples/signing/ (none is fine: no samples, no pages). */
  signers?: readonly SignerSource[];
}

/** Where a page lives: `/docs` or `/docs/<slug>`, plus `.md` for its twin. */
export const pagePath = (slug: string, markdown = false) =>
  `${slug ? `/docs/${slug}` : '/docs'}${markdown ? '.md' : ''}`;

/**
 * The sandbox's default address, as the guides and package READMEs write it in their snippets
 * (`curl -s http://127.0.0.1:8080/api/v1`, `baseUrl: 'http://127.0.0.1:8080'`). A served page
 * names the deployment that serves it instead, so a copied command reaches it.
 */
export const SNIPPET_BASE_URL = 'http://127.0.0.1:8080';

/** Every snippet address of a guide's text, as the deployment at `baseUrl` serves it. */
export function withBaseUrl(text: string, baseUrl: string): string {
  return text.replaceAll(SNIPPET_BASE_URL, baseUrl);
}

/** Links into the repository (`../vectors/signing.json`) mean nothing on the web: keep their text. */
export function stripRelativeLinks(markdown: string): string {
  return markdown.replace(/\[([^\]]*)\]\((?!\/|https?:|#|mailto:)[^)]*\)/g, '$1');
}

/** `](/docs)` → `](/docs.md)`, `](/docs/oauth#x)` → `](/docs/oauth.md#x)`: a Markdown reader follows Markdown. */
export function twinLinks(markdown: string): string {
  return markdown.replace(
    /\]\(\/docs((?:\/[a-z0-9]+(?:-[a-z0-9]+)*)?)(#[^)\s]*)?\)/g,
    (_m, slug: string, hash: string | undefined) => `](/docs${slug}.md${hash ?? ''})`,
  );
}

/** Root-relative Markdown links become absolute. */
export function absoluteLinks(markdown: string, baseUrl: string): string {
  return markdown.replace(/\]\(\//g, `](${baseUrl}/`);
}

/** The title of a guide: its first level-one heading. */
export function guideTitle(source: string, slug: string): string {
  const match = /^# (.+)$/m.exec(source);
  if (!match?.[1]) throw new Error(`docs guide "${slug}" has no "# Title" line`);
  return match[1].trim();
}

const STYLE = [
  'body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.55;color:#1a1a1a}',
  'nav{font-size:.95rem;margin-bottom:1.5rem}nav a{margin-right:1rem}',
  'code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.92em;background:#f2f2f2;padding:.05em .25em;border-radius:3px}',
  'pre{background:#f2f2f2;padding:.75rem;overflow-x:auto;border-radius:4px}pre code{padding:0;background:none}',
  'table{border-collapse:collapse;display:block;overflow-x:auto;margin:1rem 0}th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}',
  'a{color:#0645ad}a:focus{outline:2px solid #0645ad;outline-offset:2px}h3{margin-top:2.25rem}',
].join('');

/**
 * The shared page shell, plus what a docs page needs in its head: the link to its Markdown twin.
 * Unlike the hosted pages (checkout links, progress tokens), docs are meant to be found.
 */
export function docsHtml(title: string, markdownPath: string, body: string): string {
  const nav = `<nav aria-label="Documentation"><a href="/docs">Developer docs</a><a href="${escapeHtml(markdownPath)}" type="text/markdown">Markdown version</a></nav>`;
  return htmlPage(`${title} · ${SITE_NAME} docs`, STYLE, `${nav}\n${body}`, {
    indexable: true,
    head: `<link rel="alternate" type="text/markdown" href="${escapeHtml(markdownPath)}">`,
  });
}

function indexMarkdown(entries: readonly { slug: string; title: string; summary: string; kind: string }[]): string {
  const list = (kind: string) =>
    entries
      .filter((e) => e.kind === kind)
      .map((e) => `- [${e.title}](${pagePath(e.slug)}): ${e.summary}`)
      .join('\n');
  return `# Developer docs

${SITE_SUMMARY}

Every page has a Markdown twin: add \`.md\` to its address (this page is [/docs.md](/docs.md)).
[llms.txt](/llms.txt) lists them all.

## Guides

${list('guide')}

## API references

${list('reference')}

## Machine-readable

- [Public OpenAPI document](/openapi.json): public REST, OAuth 2.1, the discovery documents and MCP
- [Partner OpenAPI document](/api/partner/v1/openapi.json): the signed partner API and its webhooks
- [API index](/api/v1): links to every document below, as JSON
- [Signing test vectors](/docs/vectors/signing.json): the known-answer vectors of the request and webhook signatures (\`@domain-sales/contract/vectors/signing.json\`)
- [MCP manifest](/.well-known/mcp.json) and [MCP server card](/mcp/server-card)
- [OAuth authorization server metadata](/.well-known/oauth-authorization-server)
- [AI catalog](/.well-known/ai-catalog.json)
`;
}

function entrySource(entry: CatalogEntry, input: SiteInput): { title: string; markdown: string } {
  if (entry.kind === 'reference') {
    return {
      title: entry.title,
      markdown: referenceMarkdown(new ApiContract(entry.api, input.documents[entry.api]), {
        title: entry.title,
        defaultAuthentication: entry.defaultAuthentication,
        ...(entry.documentPath ? { documentPath: entry.documentPath } : {}),
        ...(entry.api === 'partner'
          ? {
              codeSamples: (method, path, parameters, body) =>
                samplesMarkdown(sampleCall(method, path, parameters, body), input.signers ?? []),
            }
          : {}),
      }),
    };
  }
  const source = input.guides.get(entry.slug);
  if (source === undefined) throw new Error(`docs guide "${entry.slug}" has no source (${entry.file})`);
  return { title: guideTitle(source, entry.slug), markdown: stripRelativeLinks(signerLinks(source, input)) };
}

/** A guide's link into examples/signing/<language>/ points at that signer's docs page, when there is one. */
function signerLinks(markdown: string, input: SiteInput): string {
  const present = new Set((input.signers ?? []).map((s) => s.language));
  return markdown.replace(/\]\((?:\.\.\/)*examples\/signing\/([a-z0-9]+)(?:\/[^)]*)?\)/g, (link, language: string) =>
    present.has(language) ? `](/docs/${signerSlug(language)})` : link,
  );
}

function page(slug: string, title: string, summary: string, kind: DocsPage['kind'], source: string): DocsPage {
  return {
    slug,
    title,
    summary,
    kind,
    markdown: twinLinks(source),
    html: docsHtml(title, pagePath(slug, true), renderMarkdown(source)),
  };
}

/** Bounded, because the base URL can come from the connection (its local address) when none is configured. */
function perBase<T>(build: (baseUrl: string) => T): (baseUrl: string) => T {
  const cache = new Map<string, T>();
  return (baseUrl) => {
    let value = cache.get(baseUrl);
    if (value === undefined) {
      if (cache.size >= 32) cache.clear();
      value = build(baseUrl);
      cache.set(baseUrl, value);
    }
    return value;
  };
}

export function buildSite(input: SiteInput): DocsSite {
  const pages = new Map<string, DocsPage>();
  for (const entry of CATALOG) {
    const { title, markdown } = entrySource(entry, input);
    pages.set(entry.slug, page(entry.slug, title, entry.summary, entry.kind, markdown));
  }
  for (const signer of input.signers ?? []) {
    const source = signerPageMarkdown(signer);
    const slug = signerSlug(signer.language);
    const summary = `The ${signerLabel(signer.language)} reference signer and webhook verifier (standard library only), proven against the signing vectors.`;
    pages.set(slug, page(slug, guideTitle(source, slug), summary, 'guide', stripRelativeLinks(source)));
  }
  const index = page(
    '',
    'Developer docs',
    'The start page: guides, API references, machine-readable documents.',
    'index',
    indexMarkdown([...pages.values()]),
  );

  const markdownByBase = new Map<DocsPage, (baseUrl: string) => string>();
  const htmlByBase = new Map<DocsPage, (baseUrl: string) => string>();
  for (const p of [index, ...pages.values()]) {
    markdownByBase.set(
      p,
      perBase((base) => absoluteLinks(withBaseUrl(p.markdown, base), base)),
    );
    htmlByBase.set(
      p,
      perBase((base) => withBaseUrl(p.html, escapeHtml(base))),
    );
  }

  const llmsTxt = perBase((base) => {
    const line = (p: DocsPage) => `- [${p.title}](${base}${pagePath(p.slug, true)}): ${p.summary}`;
    const of = (kind: DocsPage['kind']) => [...pages.values()].filter((p) => p.kind === kind).map(line);
    return [
      `# ${SITE_NAME}`,
      '',
      `> ${SITE_SUMMARY}`,
      '',
      'Every page below is the Markdown twin of an HTML page at the same address without `.md`.',
      '',
      '## Docs',
      '',
      line(index),
      ...of('guide'),
      '',
      '## API references',
      '',
      ...of('reference'),
      '',
      '## Machine-readable',
      '',
      `- [Public OpenAPI](${base}/openapi.json): public REST, OAuth 2.1, discovery documents, MCP`,
      `- [Partner OpenAPI](${base}/api/partner/v1/openapi.json): the signed partner API and its webhooks`,
      `- [API index](${base}/api/v1): JSON links to every document`,
      `- [Signing test vectors](${base}/docs/vectors/signing.json): known-answer vectors of the request and webhook signatures`,
      `- [MCP manifest](${base}/.well-known/mcp.json): endpoint, tools, authentication`,
      `- [AI catalog](${base}/.well-known/ai-catalog.json): the MCP server card and both OpenAPI documents`,
      '',
    ].join('\n');
  });

  return {
    index,
    pages,
    markdown: (p, base) =>
      (markdownByBase.get(p) ?? ((b: string) => absoluteLinks(withBaseUrl(p.markdown, b), b)))(base),
    html: (p, base) => (htmlByBase.get(p) ?? ((b: string) => withBaseUrl(p.html, escapeHtml(b))))(base),
    llmsTxt,
  };
}
