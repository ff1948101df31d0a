// Markdown to HTML for the docs pages. Raw HTML in a source is shown as text, never passed
// through: the sources are ours, but spec descriptions write placeholders like <base> outside
// code spans, which a browser would otherwise swallow as unknown tags.
import { Marked, type Tokens } from 'marked';
import { escapeHtml } from '../public/html.ts';

/** The anchor a heading gets: lowercase words joined by `-`. */
export function headingId(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/<[^>]*>/g, '')
      .replace(/&[a-z0-9#]+;/g, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'section'
  );
}

/** Renders one page. Heading ids are unique within the page (`-2`, `-3` on repeats). */
export function renderMarkdown(markdown: string): string {
  const used = new Map<string, number>();
  const marked = new Marked({
    gfm: true,
    renderer: {
      html({ text }: Tokens.HTML | Tokens.Tag): string {
        return escapeHtml(text);
      },
      heading({ tokens, depth }: Tokens.Heading): string {
        const inner = this.parser.parseInline(tokens);
        const base = headingId(inner);
        const seen = used.get(base) ?? 0;
        used.set(base, seen + 1);
        const id = seen === 0 ? base : `${base}-${seen + 1}`;
        return `<h${depth} id="${escapeHtml(id)}">${inner}</h${depth}>\n`;
      },
    },
  });
  return marked.parse(markdown, { async: false });
}
