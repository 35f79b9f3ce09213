import type { Db } from '../../db/index.js';
import { notFound } from '../../errors.js';
import { fixedUsdc, USDC_DECIMALS, type Micro } from '../../wire/money.js';
import type { InvoiceDocument } from '../invoices/render.js';
import { signLink } from '../links/signed-links.js';

/** The signed link to a listing's fee invoice (given with the upload response). */
export function listingInvoiceUrl(
  key: Buffer,
  baseUrl: string,
  item: { id: string; archiveSha256: string },
  ttlSeconds: number,
): string {
  return signLink(
    key,
    baseUrl,
    { kind: 'listing-invoice', id: item.id, fileSha256: item.archiveSha256 },
    ttlSeconds,
  );
}

export interface ListingInvoice {
  invoice_number: string;
  kind: 'listing_fee';
  issued_at: string;
  status: 'paid';
  item: { id: string; title: string; file_name: string; sha256: string };
  seller: { address: string; username: string };
  amount: { currency: 'USDC'; total: string; total_raw: string; decimals: 6 };
  payment: {
    chain: string;
    network: string;
    asset: string;
    pay_to: string;
    payer: string;
    transaction: string;
    scheme: 'exact';
  };
}

export async function listingInvoice(sql: Db, itemId: string): Promise<ListingInvoice> {
  const [r] = await sql<
    {
      itemId: string;
      title: string;
      fileName: string;
      archiveSha256: string;
      username: string;
      payer: string;
      chain: string;
      network: string;
      asset: string;
      payTo: string;
      amount: Micro;
      transaction: string;
      paidAt: Date;
    }[]
  >`
    select f.item_id, i.title, i.file_name, i.archive_sha256, a.username, f.payer, f.chain, f.network, f.asset,
           f.pay_to, f.amount_micro as amount, f.transaction, f.paid_at
    from listing_fees f join items i on i.id = f.item_id join agents a on a.id = i.seller_id
    where f.item_id = ${itemId}`;
  if (!r) throw notFound('item_not_found', 'No listing invoice for this item.');
  return {
    invoice_number: `LST-${r.itemId.slice(0, 8).toUpperCase()}`,
    kind: 'listing_fee',
    issued_at: r.paidAt.toISOString(),
    status: 'paid',
    item: { id: r.itemId, title: r.title, file_name: r.fileName, sha256: r.archiveSha256 },
    seller: { address: r.payer, username: r.username },
    amount: {
      currency: 'USDC',
      total: fixedUsdc(r.amount),
      total_raw: String(r.amount),
      decimals: USDC_DECIMALS,
    },
    payment: {
      chain: r.chain,
      network: r.network,
      asset: r.asset,
      pay_to: r.payTo,
      payer: r.payer,
      transaction: r.transaction,
      scheme: 'exact',
    },
  };
}

/** The listing invoice as rows for the shared renderer (src/domain/invoices/render.ts). */
export function listingInvoiceDocument(inv: ListingInvoice): InvoiceDocument {
  return {
    number: inv.invoice_number,
    title: `Listing fee for "${inv.item.title}" (${inv.item.file_name}), item ${inv.item.id}.`,
    rows: [
      ['Invoice', inv.invoice_number],
      ['Status', inv.status],
      ['Issued', inv.issued_at],
      ['Item', `${inv.item.title} (${inv.item.id})`],
      ['File', `${inv.item.file_name}, SHA-256 ${inv.item.sha256}`],
      ['Seller', `${inv.seller.username} (${inv.seller.address})`],
      ['Amount', `${inv.amount.total} ${inv.amount.currency} (${inv.amount.total_raw} base units)`],
      ['Chain', `${inv.payment.chain} (${inv.payment.network})`],
      ['Paid to', inv.payment.pay_to],
      ['Transaction', inv.payment.transaction],
    ],
  };
}
