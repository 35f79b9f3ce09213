import { fixedUsdc, USDC_DECIMALS } from '../../wire/money.js';
import type { InvoiceDocument } from '../invoices/render.js';
import type { OrderRecord } from './orders.js';
import type { Invoice } from '../../wire/orders.js';

export function buildInvoice(o: OrderRecord): Invoice {
  return {
    invoice_number: `INV-${o.id.slice(0, 8).toUpperCase()}`,
    order_id: o.id,
    issued_at: o.completedAt.toISOString(),
    status: 'paid',
    item: { id: o.itemId, title: o.itemTitle, file_name: o.fileName, sha256: o.archiveSha256 },
    seller: { username: o.sellerUsername },
    buyer: { address: o.payer, username: o.buyerUsername },
    amount: {
      currency: 'USDC',
      total: fixedUsdc(o.amountMicro),
      total_raw: String(o.amountMicro),
      decimals: USDC_DECIMALS,
    },
    payment: {
      chain: o.chain,
      network: o.network,
      asset: o.asset,
      pay_to: o.payTo,
      payer: o.payer,
      transaction: o.transaction,
      scheme: 'exact',
    },
    legal: {
      policy_version: o.policyVersion,
      policy_url: o.policyUrl,
      license_version: o.licenseVersion,
      license_url: o.licenseUrl,
      accepted_at: o.acceptedAt.toISOString(),
    },
  };
}

/** The order invoice as rows for the shared renderer (src/domain/invoices/render.ts). */
export function invoiceDocument(inv: Invoice): InvoiceDocument {
  return {
    number: inv.invoice_number,
    title: `Purchase of "${inv.item.title}" (order ${inv.order_id}).`,
    rows: [
      ['Invoice', inv.invoice_number],
      ['Order', inv.order_id],
      ['Issued', inv.issued_at],
      ['Status', inv.status],
      ['Item', `${inv.item.title} (${inv.item.id})`],
      ['File', `${inv.item.file_name}, SHA-256 ${inv.item.sha256}`],
      ['Seller', inv.seller.username],
      ['Buyer', `${inv.buyer.username} (${inv.buyer.address})`],
      ['Amount', `${inv.amount.total} ${inv.amount.currency} (${inv.amount.total_raw} base units)`],
      ['Chain', `${inv.payment.chain} (${inv.payment.network})`],
      ['Asset', inv.payment.asset],
      ['Paid to', inv.payment.pay_to],
      ['Transaction', inv.payment.transaction],
      ['Policy terms', `${inv.legal.policy_version} ${inv.legal.policy_url}`],
      ['License terms', `${inv.legal.license_version} ${inv.legal.license_url}`],
      ['Terms accepted', inv.legal.accepted_at],
    ],
  };
}
