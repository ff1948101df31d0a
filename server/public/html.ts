// The shell of every server-rendered page (hosted checkout, brokerage progress): one accessible
// layout, no JavaScript, no third-party assets, and escaping for every interpolated value.

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A complete HTML document; `title` is escaped here, `main` must already be safe HTML. */
export function htmlPage(title: string, style: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<main>
${main}
</main>
</body>
</html>
`;
}
