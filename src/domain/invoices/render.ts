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

export function renderInvoiceMarkdown(doc: InvoiceDocument): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    `# Invoice ${doc.number}`,
    '',
    doc.title,
    '',
    '| Field | Value |',
    '|---|---|',
    ...doc.rows.map(([k, v]) => `| ${k} | ${cell(v)} |`),
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
