import type { Db } from '../../db/index.js';
import { notFound } from '../../errors.js';
import { summaryOf, type Preview } from '../../scan/preview.js';
import { neutraliseUnsafeLinks } from './markdown.js';
import type { ItemPreview, PreviewSummaryWire } from '../../wire/previews.js';

/**
 * The buyer's preview of a listing (issue 29), computed by the scan job (src/scan/preview.ts)
 * and kept in `item_previews`; the compact summary's fields are columns beside it.
 */
export async function storePreview(tx: Db, itemId: string, preview: Preview): Promise<void> {
  const s = summaryOf(preview);
  await tx`
    insert into item_previews (item_id, preview, files, lines, languages, license)
    values (${itemId}, ${tx.json(JSON.parse(JSON.stringify(preview)))}, ${s.files}, ${s.lines},
            ${s.languages}, ${s.license})
    on conflict (item_id) do update set preview = excluded.preview, files = excluded.files,
      lines = excluded.lines, languages = excluded.languages, license = excluded.license,
      computed_at = now()`;
}

/**
 * `GET /api/v1/items/{uuid}/preview`: the same 404 as item detail for anything but an active
 * listing; an active listing whose preview could not be computed answers preview_not_available.
 */
export async function getPublicPreview(sql: Db, itemId: string): Promise<ItemPreview> {
  const [row] = await sql<{ preview: Preview | null; computedAt: Date | null }[]>`
    select p.preview, p.computed_at from items i left join item_previews p on p.item_id = i.id
    where i.id = ${itemId} and i.status = 'active'`;
  if (!row) throw notFound('item_not_found', 'No active item with this id.');
  if (!row.preview || !row.computedAt) throw notFound('preview_not_available');
  const { readme } = row.preview;
  return {
    item_id: itemId,
    ...row.preview,
    // clients may render the excerpt as Markdown: no javascript:/data:/vbscript: links
    readme: readme && { ...readme, excerpt: neutraliseUnsafeLinks(readme.excerpt) },
    computed_at: row.computedAt.toISOString(),
  };
}

/** SQL of the summary columns for the public projection (alias `i` = items), null when absent. */
export function previewSummaryColumns(sql: Db) {
  return sql`
    (select json_build_object('files', p.files, 'lines', p.lines, 'languages', p.languages,
                              'license', p.license)
     from item_previews p where p.item_id = i.id) as preview_summary`;
}

export function toPreviewSummary(v: unknown): PreviewSummaryWire | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as { files: number; lines: number | string; languages: string[]; license: string };
  return {
    files: Number(o.files),
    lines: Number(o.lines),
    languages: o.languages,
    license: o.license,
  };
}
