/**
 * The one invoice renderer: an invoice of any kind (order, listing fee) is a number, a title and
 * labelled rows; JSON is the invoice's own data, Markdown and HTML are rendered from the rows.
 */
export interface InvoiceDocument {
  number: string;
  /** One line saying what was paid for. */
  title: string;
  rows: Array<[label: string, value: string]>;
}

/**
 * Seller text as literal Markdown: every character that could open markup (emphasis, code, links
 * and images, raw HTML, autolinks, entities, table cells, strike-through) is backslash-escaped, and
 * line breaks become spaces, so `<script>` or `[x](javascript:…)` in a title renders as the text
 * it is (CommonMark: any escaped ASCII punctuation is that character, nothing more).
 */
export function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_[\]<>&!|~]/g, '\\$&').replace(/[\r\n]+/g, ' ');
}

export function renderInvoiceMarkdown(doc: InvoiceDocument): string {
  return [
    `# Invoice ${escapeMarkdown(doc.number)}`,
    '',
    escapeMarkdown(doc.title),
    '',
    '| Field | Value |',
    '|---|---|',
    ...doc.rows.map(([k, v]) => `| ${escapeMarkdown(k)} | ${escapeMarkdown(v)} |`),
    '',
  ].join('\n');
}

const escapeHtml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

export function renderInvoiceHtml(doc: InvoiceDocument): string {
  const body = doc.rows
    .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`)
    .join('\n');
  const heading = `Invoice ${escapeHtml(doc.number)}`;
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${heading}</title></head>\n<body>\n<h1>${heading}</h1>\n<p>${escapeHtml(doc.title)}</p>\n<table>\n${body}\n</table>\n</body></html>\n`;
}
