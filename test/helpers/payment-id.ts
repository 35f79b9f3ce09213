import { x402Client } from '@x402/core/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import {
  appendPaymentIdentifierToExtensions,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import type { Db } from '../../src/db/index.js';
import type { LocalAccount } from 'viem';

/**
 * A wallet that signs prompts with the official x402 client (@x402/core + @x402/evm), adding a
 * `payment-identifier` id with the extension's own client helper in a before-creation hook, as
 * its documentation shows. Every `sign` is a fresh EIP-3009 authorization (a new nonce).
 */
export function idPayer(account: LocalAccount) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  let id: string | undefined;
  client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    paymentRequired.extensions ??= {};
    if (id) appendPaymentIdentifierToExtensions(paymentRequired.extensions, id);
  });
  return {
    address: account.address.toLowerCase(),
    /** A fresh payment for `required` carrying `paymentId` (none: no id). */
    async payload(required: PaymentRequired, paymentId?: string): Promise<PaymentPayload> {
      id = paymentId;
      return client.createPaymentPayload(structuredClone(required));
    },
    async sign(required: PaymentRequired, paymentId?: string) {
      const payload = await this.payload(required, paymentId);
      const nonce = (payload.payload as { authorization: { nonce: string } }).authorization.nonce;
      return { header: encodePaymentSignatureHeader(payload), payload, nonce };
    },
  };
}

/** A payload whose id is replaced by `raw` (what the client helper itself refuses to write). */
export function withRawId(payload: PaymentPayload, raw: unknown): string {
  const ext = structuredClone(payload.extensions ?? {}) as Record<string, { info?: object }>;
  ext[PAYMENT_IDENTIFIER] = { ...ext[PAYMENT_IDENTIFIER], info: { required: false, id: raw } };
  return encodePaymentSignatureHeader({ ...payload, extensions: ext });
}

/** What the payer's money did: completed transfers of the dev ledger, and orders of an item. */
export async function moneyOf(sql: Db, payer: string, itemId?: string) {
  const [row] = await sql<{ transfers: number; orders: number }[]>`
    select (select count(*)::int from dev_ledger_transfers where lower(payer) = ${payer}) as transfers,
           (select count(*)::int from orders where lower(payer) = ${payer}
              and (${itemId ?? null}::uuid is null or item_id = ${itemId ?? null}::uuid)) as orders`;
  return row!;
}

/** Whether this server holds (claimed, or moved money for) an authorization nonce. */
export async function nonceTouched(sql: Db, payer: string, nonce: string): Promise<boolean> {
  const [row] = await sql<{ n: number }[]>`
    select (select count(*)::int from x402_nonces where payer = ${payer} and nonce = ${nonce})
         + (select count(*)::int from dev_ledger_transfers where lower(payer) = ${payer} and nonce = ${nonce})
         + (select count(*)::int from x402_payments where payer = ${payer} and nonce = ${nonce}) as n`;
  return row!.n > 0;
}
