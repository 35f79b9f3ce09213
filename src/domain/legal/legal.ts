/**
 * Legal documents of the marketplace (spec 9 rule 4). Acceptance at purchase is bound to the
 * version and address current at that time; bumping a version here is the only change needed
 * when the texts change (old texts stay served at their old paths).
 */
export interface LegalDocument {
  kind: 'terms' | 'license';
  version: string;
  title: string;
  /** Path relative to the base URL, e.g. `/terms/v1`. */
  path: string;
  markdown: string;
}

const TERMS_V1 = `# Marketplace Policy Terms

VERSION: v1

These terms govern the use of the code artifact marketplace by autonomous agents and the people or
organisations that operate them ("you").

## 1. The service
The marketplace lists code archives ("artifacts") uploaded by sellers and sells licences to use
them to buyers. Payments are made in USDC through the x402 protocol by EIP-3009 authorizations
signed by the payer; a payment facilitator settles them on chain. The platform never holds your
private keys.

## 2. Identity
Your wallet address is your identity. You are responsible for every operation signed with your
wallet's keys, including zero-value identity signatures.

## 3. Listings
- You may list only artifacts you have the right to sell.
- Every upload is scanned before it becomes visible. Archives with unsafe contents, secrets,
  executables or too little meaningful source are refused; a refused archive can never be listed
  again by anyone.
- The listing fee is not refunded when a listing is refused or deleted.
- You may delete a listing at any time; buyers who already bought it keep access to it.

## 4. Purchases
- A purchase is final once the payment settles. Prices are exact and stated in USDC.
- Download links are temporary bearer credentials: do not share or store them; fetch fresh ones
  from your order.
- Buyers may rate and review items they bought; reviews are moderated and never published as text.

## 5. Payouts
Sale proceeds go to the seller's payout contract on the chain of the sale and are forwarded to the
seller automatically, normally within 15 minutes. The platform fee is fixed in that contract.

## 6. Conduct and availability
Abuse of the service (spam, attempts to bypass scanning, payment replay) may lead to refusal of
service. The marketplace may be unavailable in some regions.

## 7. Liability
Artifacts are provided by their sellers as they are. To the extent the law allows, the platform is
not liable for the contents of artifacts or for losses arising from their use.
`;

const LICENSE_V1 = `# Buyer License Terms

VERSION: v1

This licence is granted by the seller of an artifact to the buyer who completed a purchase of it
on the marketplace.

## 1. Grant
On completion of the purchase the buyer receives a perpetual, worldwide, non-exclusive licence to
use, copy, modify and run the artifact, and to incorporate it into the buyer's own software,
including commercial software.

## 2. Restrictions
- The buyer may not resell or redistribute the artifact as a stand-alone product, in source or in
  archive form, nor list it on this or another marketplace.
- Software that incorporates the artifact may be distributed in compiled or bundled form.

## 3. Third-party components
Components inside the artifact that carry their own licence remain under that licence.

## 4. No warranty
The artifact is provided "as is", without warranty of any kind. The seller and the platform are
not liable for any claim or damage arising from its use.

## 5. Record
The marketplace records the version of this licence accepted at purchase, with the buyer's wallet
and the time, as part of the order.
`;

export const LEGAL_DOCUMENTS: LegalDocument[] = [
  {
    kind: 'terms',
    version: 'v1',
    title: 'Marketplace Policy Terms',
    path: '/terms/v1',
    markdown: TERMS_V1,
  },
  {
    kind: 'license',
    version: 'v1',
    title: 'Buyer License Terms',
    path: '/license/v1',
    markdown: LICENSE_V1,
  },
];

export function findLegalDocument(kind: string, version: string): LegalDocument | undefined {
  return LEGAL_DOCUMENTS.find((d) => d.kind === kind && d.version === version);
}

/** A small, safe Markdown-to-HTML rendering for our own fixed documents (headings, lists, text). */
export function legalHtml(doc: LegalDocument): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const out: string[] = [];
  let inList = false;
  let para: string[] = [];
  const flush = () => {
    if (para.length) out.push(`<p>${esc(para.join(' '))}</p>`);
    para = [];
  };
  for (const line of doc.markdown.split('\n')) {
    const h = /^(#{1,3}) (.*)$/.exec(line);
    const li = /^- (.*)$/.exec(line);
    if (h || li || line.trim() === '') flush();
    if (!li && inList && !/^ {2}/.test(line)) {
      out.push('</ul>');
      inList = false;
    }
    if (h) out.push(`<h${h[1]!.length}>${esc(h[2]!)}</h${h[1]!.length}>`);
    else if (li) {
      if (!inList) out.push('<ul>');
      inList = true;
      out.push(`<li>${esc(li[1]!)}</li>`);
    } else if (/^ {2}/.test(line) && inList) {
      const last = out.pop()!;
      out.push(last.replace(/<\/li>$/, ` ${esc(line.trim())}</li>`));
    } else if (line.trim() !== '') para.push(line.trim());
  }
  flush();
  if (inList) out.push('</ul>');
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${esc(doc.title)} ${doc.version}</title></head>\n<body>\n${out.join('\n')}\n</body></html>\n`;
}
