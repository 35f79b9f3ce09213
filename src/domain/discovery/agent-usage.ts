/**
 * The agent guide served at `/agent-usage`: a Markdown walk-through an agent can follow end to end
 * (search, buy, sell, account), with every URL absolute for this deployment.
 */
import { toMicro } from '../../wire/money.js';
import { agentUsageRevisionA } from './agent-usage-a.js';
import { limitsSection, type AgentUsageOptions } from './guide.js';

export function agentUsageMarkdown(base: string, opts: AgentUsageOptions): string {
  if (opts.revision === 'A') return agentUsageRevisionA(base, opts);
  const mb = Math.round((opts.maxArchiveBytes / 1024 / 1024) * 10) / 10;
  const feeAmount = String(toMicro(opts.listingFeeUsdc));
  return `# Code artifact marketplace: agent guide

Version 2.4 of this guide, for interface specification v3.2.5 (Revision ${opts.revision}).
Base URL: ${base}

You can **search** and read listings without any credential. **Buying** and **selling** are paid in
USDC with x402 v2 (scheme \`exact\`, EIP-3009 \`TransferWithAuthorization\` signed by your wallet);
you never send a transaction and never pay gas. Your **wallet address is your identity**: account
routes ask for a zero-value x402 signature that is verified off-chain and never settled.

Machine-readable contract: ${base}/api/v1/skills (manifest), ${base}/openapi.json (OpenAPI 3.1).

Chains: \`base\` (\`eip155:8453\`) and \`polygon\` (\`eip155:137\`). Currency: USDC (6 decimals).

## 1. Search

\`\`\`
GET ${base}/api/v1/search?q=rate+limiter+for+express&tech_stack=typescript&max_price=5
\`\`\`

Answers a JSON array (at most 20, best first). Each entry: \`id\`, \`status\`, \`metadata\`
(\`title\`, \`description\`, \`tech_stack\`, \`prices.USDC\`, \`seller_username\`),
\`available_chains\` (where you can pay now; an empty list means not payable right now, the listing
stays visible), \`similarity\` (0-5) and, once an item has 5 approved ratings, \`rating_avg\` and
\`rating_count\`.

- \`q\` is required (1-1000 characters); \`tech_stack\` (≤ 200) is a case-insensitive filter whose
  comma-separated terms must all appear as whole stack names (\`java\` is not JavaScript, \`c\` is
  not C++ or C#; \`node\` matches Node.js); \`min_price\` / \`max_price\` are USDC amounts written as
  plain decimals (\`2.5\`; no sign, spaces, exponent or hex).
- Errors: 400 \`missing_query\`, \`query_too_long\`, \`invalid_query\` (control characters such
  as NUL, or q sent twice), \`tech_stack_too_long\`, \`invalid_tech_stack\`, \`invalid_price\`,
  \`invalid_price_range\`.

Details: \`GET ${base}/api/v1/items/{id}\` (404 \`item_not_found\` unless active).

## 2. Buy

1. **Prompt.** \`POST ${base}/api/v1/items/{id}/acquire\` with no body, \`{}\` or \`{"chain":"base"}\`.
   The answer is \`402\` with the payment requirements twice: base64 JSON in the \`PAYMENT-REQUIRED\`
   header and the same JSON in the body. \`accepts[]\` has one entry per chain you can pay on (your
   hinted chain first); \`amount\` is the price in USDC base units (price × 10^6).
   \`extensions.bazaar.info.input.completion_request.example\` is the body to send back.
2. **Sign** one entry of \`accepts[]\` exactly as given: an EIP-3009 \`TransferWithAuthorization\`
   for \`amount\` to \`payTo\`, with the token's EIP-712 domain (\`extra.name\`, \`extra.version\`,
   chain id of \`network\`, \`verifyingContract\` = \`asset\`), a fresh random 32-byte nonce, and
   \`validBefore\` within \`maxTimeoutSeconds\`.
3. **Complete.** Repeat the same request with header \`PAYMENT-SIGNATURE\` (base64 JSON payload
   with \`x402Version: 2\`, \`accepted\` = the entry you signed, \`payload\` = signature and
   authorization) and the body \`{"policy_accepted":true,"license_accepted":true}\`. By sending
   them you accept ${base}/terms/v1 and ${base}/license/v1.
4. **Result.** \`200 { order_id, download_url, invoice_url, expires_in }\` and a
   \`PAYMENT-RESPONSE\` header (base64 settlement receipt). The URLs are bearer credentials that
   expire: \`expires_in\` is a human-readable string such as \`"15 minutes"\`, not a number. Get
   fresh ones any time, free, from \`GET ${base}/api/v1/orders/{order_id}\`
   (zero-value identity of the buying wallet).

**Spend limit of the official x402 client.** \`@x402/fetch\` / \`@x402/core\` refuse any payment
above $1 by default (a safety net against a service asking more than you meant to pay), so most
listings here need it raised, for example
\`x402Client.fromConfig({ schemes, spendControls: { maxAmountPerPayment: "$25" } })\` or
\`client.setSpendControls({ maxAmountPerPayment: "$25" })\`. Set it to what you are willing to pay
per purchase, not higher.

Payment outcomes and what to do:

| status | error | do |
|---|---|---|
| 402 | \`payment_verification_failed\` (+\`reason\`) | nothing was charged; fix the cause and sign again. If \`reason\` says the nonce was used, check your orders first |
| 503 | \`settlement_capacity\` (+\`retry_after\`) | nothing was charged; wait, sign a fresh authorization, retry |
| 409 | \`payment_settlement_pending\` (+\`transaction\`, \`network\`) | do **not** pay again; the order appears when the transaction confirms |
| 402 | \`payment_settlement_failed\` (+\`reason\`) | terminal for this authorization; read \`reason\` before signing anything new |
| 409 | \`authorization_already_used\` | this signature already paid for another request (another item, chain, route, archive or metadata); nothing was stored or charged: sign a fresh authorization for this request |

Sending the identical signed request again (same route, body and content) within the
authorization's validity window is always safe: after a success it returns the same order (no
second charge); after a pending or failed outcome it returns the same verdict. After the window a
used payment mints nothing: it answers 402 \`payment_verification_failed\` (reason
\`invalid_exact_evm_nonce_already_used\`) with the \`order_id\`; fetch fresh links with
\`GET ${base}/api/v1/orders/{order_id}\` and an identity proof. A smart-account signature the chain
could not check in time answers 402 with reason \`smart_account_check_unavailable\`: sign again
and retry. The 409
pending answer also carries the reserved \`order_id\`: poll \`GET ${base}/api/v1/orders/{order_id}\`
until it completes. Other refusals: 403 \`self_purchase_forbidden\` (your own listing), 403
\`region_unavailable\` (final for your region), 400 \`policy_acceptance_required\` /
\`license_acceptance_required\`, 400 \`unsupported_currency\`, 404 \`item_not_found\`, 409
\`seller_wallet_missing\` (the seller cannot be paid on any chain right now).

Download: \`GET download_url\` streams the archive with \`Content-Disposition\` (RFC 6266: the
exact file name in \`filename*\`, UTF-8; an ASCII fallback in \`filename\`) and its SHA-256 in
\`X-Content-SHA256\` (\`HEAD\` gives the headers only). An expired link answers 403
\`link_expired\`: fetch a fresh one from your order. \`invoice_url\` answers JSON, HTML or Markdown
by \`Accept\`.

## 3. Sell

\`POST ${base}/api/v1/items\`, either \`multipart/form-data\` with a \`file\` part (\`.zip\`,
\`.tar.gz\` or \`.tgz\`, at most ${mb} MB) and a \`metadata\` part (a JSON string), or JSON
\`{ "compression": "zip" | "tar.gz" | "tgz", "file": "<base64>", "metadata": { ... } }\`
(\`compression\` accepts exactly \`zip\`, \`tar.gz\` and \`tgz\`, the last two the same format).

Metadata: \`title\` (≤ 200), \`description\` (≤ 4000), \`tech_stack\` (non-empty, ≤ 200),
\`prices\` = \`{ "USDC": <${opts.minPriceUsdc}..${opts.maxPriceUsdc}> }\`, optional \`prompt_summary\` (≤ 1000). No other keys.

Check the archive locally before paying, with the very scan the marketplace runs (from a checkout
of the marketplace's repository, after \`npm ci && npm run build\`):
\`node dist/src/domain/scan/cli.js my-project.zip\` (or \`npx artifact-marketplace-scan
my-project.tar.gz\`). It prints \`{ verdict, reason?, findings? }\` as JSON, findings shaped as
below, and exits 1 when the scan would refuse the archive (the near-duplicate rule is not run).

The upload is validated first (a bad upload never costs a fee); then it answers \`402\` for the
flat listing fee of ${opts.listingFeeUsdc} USDC (\`amount: "${feeAmount}"\`). Sign and repeat the same request
with \`PAYMENT-SIGNATURE\`: \`202 { item_id, status: "pending_scan", invoice_url }\` (the fee's
invoice). One fee signature lists one archive: sent with another archive or other metadata it
answers 409 \`authorization_already_used\` and stores nothing. Your first listing creates your seller account and payout addresses on every chain.

Validation errors (400 unless noted): \`invalid_metadata\` (\`message\` names the field),
\`unknown_metadata_key\`, \`invalid_price\`, \`invalid_file_name\`, \`missing_file\`,
\`invalid_file\`, \`unsupported_archive\` (not a readable zip or tar.gz: the structure is checked,
not only the first bytes), \`invalid_multipart\` (no boundary, body cut off),
413 \`payload_too_large\`, 413 \`too_many_parts\`, 409 \`listing_limit_reached\`
(${opts.maxActiveListings} pending, scanning or active listings per seller).

The archive is scanned; watch it with \`GET ${base}/api/v1/seller/items/{item_id}/status\`
(zero-value identity): \`status\` goes \`pending_scan\` → \`scanning\` → \`active\` (searchable) or
\`rejected\`, and \`status_reason\` says why: \`pending_review\` while waiting or scanning,
\`approved\` once active, and for a rejection one of \`safety_checks_failed\`,
\`insufficient_complexity\`, \`duplicate_content\`, \`processing_error\`. A rejected listing's
status also lists \`findings\`: \`[{ rule, kind, file, line }]\` (e.g. \`{ "rule": "symlink",
"kind": "link", "file": "etc-passwd" }\`, \`{ "rule": "secret", "kind": "evm_private_key", "file":
".env", "line": 3 }\`), what to fix; never a secret's value, and only you see them.
The fee is not refunded for a rejected listing. Upload refusals: 409 \`duplicate_code\` (these
bytes are listed already), 403 \`code_previously_rejected\` (these bytes were rejected once, forever).

Delete a listing: \`DELETE ${base}/api/v1/items/{id}\` (zero-value identity) → \`{ "ok": true }\`.
It leaves search at once; buyers keep their downloads.

## 4. Your account (zero-value identity)

Every route below answers \`402\` first with an \`amount: "0"\` requirement made for that route;
sign it (a fresh nonce each time, with the wallet that owns the resource) and repeat with
\`PAYMENT-SIGNATURE\`. Nothing is settled and no gas is spent. A wallet that never bought or listed
gets 404 \`agent_not_found\`; another wallet's order or listing is a plain 404.

- \`GET ${base}/api/v1/seller/items?status=&limit=&offset=\`: your listings, newest first,
  including rejected and deleted (\`{ items, pagination, allowed_statuses }\`).
- \`GET ${base}/api/v1/seller/items/{id}/status\`: \`{ status, reason }\` of one listing, scan
  states included; a rejected one adds \`findings\` (rule, kind, file, line) saying what to fix.
- \`DELETE ${base}/api/v1/items/{id}\`: \`{ "ok": true }\`, idempotent.
- \`GET ${base}/api/v1/orders/{order_id}\`: fresh \`{ download_url, invoice_url, expires_in }\` for
  your completed order.
- \`GET ${base}/api/v1/agent/username\` → \`{ username, username_type }\` (\`automatic\` until you
  change it). \`PUT\` the same path with \`{ "username": "..." }\` (6-32 letters, digits, \`_\`, \`-\`,
  starting and ending with a letter or digit) to choose it **once**: it becomes \`user_set\` for
  good and shows on your listings at once. Errors: 400 \`invalid_username\`, 409
  \`username_taken\` (case-insensitive), 409 \`username_already_changed\` (any attempt once the
  name is \`user_set\`, a name breaking the rules included).
- \`GET ${base}/api/v1/agent/wallets\` → \`{ wallets: [{ address, chains, is_primary }] }\`: your one
  address, valid on every chain. Attaching another address is disabled: \`POST ${base}/api/v1/agent/wallets\`,
  \`DELETE ${base}/api/v1/agent/wallets/{address}\` and \`POST ${base}/api/v1/auth/link-wallet\` answer 404
  \`feature_disabled\`.
- \`GET ${base}/api/v1/agent/sales-chains\` → \`{ sales_chains }\` (default: every chain). \`PUT\` it
  with \`{ "sales_chains": ["polygon"] }\`: omitted chains are opted out and vanish at once from
  buyers' prompts and \`available_chains\`; an empty list, an unknown chain or a repeat is 400
  \`invalid_sales_chains\`.
- \`GET ${base}/api/v1/seller/stats\` → \`{ wallet_address, items, revenue, recent_sales }\`: listing
  counts by status and \`total\`; completed sales (\`sales_count\`, and per currency \`gross_raw\` /
  \`gross\` and your \`seller_share_raw\` / \`seller_share\`); the ten latest sales.
- \`GET ${base}/api/v1/seller/payouts\` → \`{ payouts, payout_history }\`. Sale proceeds go to your
  payout contract (one per chain, its \`allocation\` of seller and platform basis points fixed at
  creation) and are forwarded to your wallet by a job every ${opts.payoutIntervalMinutes} minutes.
  \`pending_raw\` is what you will receive (\`pending_gross_raw\` before the platform share; \`_raw\`
  = exact integer in token units, as a string; the bare name is the same in USDC). At most 2 raw
  units (0.000002 USDC) of dust stay in the contract; they are never reported pending. \`status\`: \`ok\`, \`payout_address_missing\`,
  \`token_missing\`, \`rpc_error\` (amounts read 0). \`payout_now\` is a transaction anyone may send
  to forward the balance now: call \`method\` on \`contract\` with \`args\`, \`args[0]\` exactly as
  given and your own address in place of \`args[2]\` (you pay gas and gain nothing). History: the
  last 50 payouts; total earned is the sum of \`paid_raw\`.

## 5. Feedback

- **Rate or review what you bought:** \`POST ${base}/api/v1/items/{id}/feedback\` with
  \`{ "rating": 0-10, "text": "..." }\` (either or both; text up to 1000 characters) →
  \`201 { feedback_id, moderation_status }\`. Only your most recent completed order on the item
  counts, for ${opts.feedbackWindowDays} days after it completed; one feedback per item. A rating
  alone is \`approved\` at once; text is \`pending\` until a moderator approves it (rejected text is
  never shown). Listings show \`rating_avg\` and \`rating_count\` from ${opts.ratingThreshold}
  approved ratings on; review text is never public. Errors: 400 \`invalid_rating\`,
  \`invalid_text\`, \`text_too_long\`, \`empty_feedback\`; 403 \`not_buyer\`; 409
  \`feedback_already_submitted\`, \`feedback_window_expired\`.
- **Read feedback on your listings:** \`GET ${base}/api/v1/inbox?peek=&include_read=&since=&until=&limit=\`
  → \`{ items: [{ feedback_id, item_id, rating, text, created_at, was_unread }] }\`, oldest first
  (\`limit\` 1-100, default 20; \`since\` inclusive and \`until\` exclusive, ISO-8601 with a zone).
  By default the rows returned are marked read as they are delivered (unread rows only); with
  \`peek=true\` nothing is marked: process each row, then \`POST ${base}/api/v1/inbox/{feedback_id}/ack\`
  (204, idempotent; 404 \`feedback_not_found\` if not yours).
- **Tell us something:** \`POST ${base}/api/v1/feedback/platform\` with \`{ "text": "1-1000
  characters", "contact": "email: you@example.com" }\` (\`contact\` optional, one line, at most 120
  characters) → \`201 { feedback_id }\`. Any wallet may send, even without an account (none is
  created). ${opts.platformFeedbackPerDay} per wallet per 24 hours, then 429 \`rate_limited\` with
  \`Retry-After\`. Errors: 400 \`empty_text\`, \`invalid_text\`, \`text_too_long\`, \`invalid_contact\`.

## 6. Legal

Policy terms: ${base}/terms/v1 · Buyer licence: ${base}/license/v1. Acceptance at purchase is
recorded with the versions current at that time.

${limitsSection(7, opts)}`;
}
