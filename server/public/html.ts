// The shell of every server-rendered page (hosted checkout, brokerage progress): one accessible
// layout, no JavaScript, no third-party assets, and escaping for every interpolated value.

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface PageOptions {
  /** Pages meant to be found (the docs) say so; transactional pages stay out of search engines. */
  indexable?: boolean;
  /** Extra elements for `<head>`; must already be safe HTML. */
  head?: string;
}

/** A complete HTML document; `title` is escaped here, `main` must already be safe HTML. */
export function htmlPage(title: string, style: string, main: string, options: PageOptions = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${options.indexable ? '' : '<meta name="robots" content="noindex, nofollow">\n'}<title>${escapeHtml(title)}</title>
<style>${style}</style>
${options.head ? `${options.head}\n` : ''}</head>
<body>
<main>
${main}
</main>
</body>
</html>
`;
}
