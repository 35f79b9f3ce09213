import { randomBytes } from 'node:crypto';
import type {
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  SupportedResponse,
  VerifyResponse,
} from '@x402/core/types';
import { getAddress, type Hex } from 'viem';
import type { Sql } from '../db/index.js';
import { sameAddress } from './addresses.js';
import {
  checkAuthorization,
  parseExactEvmPayload,
  SMART_ACCOUNT_CHECK_UNAVAILABLE,
  verifyAuthorizationSignature,
  type ExactEvmPayload,
} from './eip3009.js';
import { SignatureCheckUnavailable } from './smart-accounts.js';
import {
  SettlementNotAttempted,
  type AuthorizationQuery,
  type AuthorizationState,
  type CheckedSettlement,
  type Facilitator,
  type InlineSettlement,
} from './facilitator.js';
import {
  InsufficientFunds,
  ledgerTransfer,
  ledgerTransferToSelf,
  ledgerWrites,
  resolveLedgerPending,
  transferOf,
} from './ledger-sql.js';
import { networkByCaip2, type PaymentNetwork, type PaymentNetworks } from './networks.js';

/**
 * A fresh dev-ledger transaction hash: 32 bytes of the CSPRNG, drawn 256 hashes at a time, as
 * node's own `randomUUID` buffers its entropy. A synchronous `randomBytes(32)` per settlement is
 * a crypto job and a locked draw from OpenSSL's generator each time (5.7-7.6 µs a call in a loop,
 * ~20 µs within a served completion; from the pool 0.1-0.3 µs). The bytes are the same
 * generator's, and each is handed out once.
 */
const TX_POOL_SIZE = 32 * 256;
let txPool = Buffer.alloc(0);
let txOffset = 0;
function transactionHash(): Hex {
  if (txOffset >= txPool.length) {
    txPool = randomBytes(TX_POOL_SIZE);
    txOffset = 0;
  }
  const hash = txPool.toString('hex', txOffset, txOffset + 32);
  txOffset += 32;
  return `0x${hash}`;
}

/**
 * The built-in facilitator (embedded default): the checks a real `exact` EVM facilitator makes
 * (signature, recipient, amount, window, token, unused nonce, balance) against a dev ledger of USDC
 * balances in Postgres instead of a chain. Settlement moves ledger balances atomically and returns
 * a transaction hash; the token's authorization state is the ledger's unique nonce.
 *
 * Tests (and operators rehearsing incidents) can queue faults so that the next verify or settle
 * answers with each failure of spec 7.1.
 */
export type LocalFault =
  | { op: 'verify'; invalidReason: string }
  | { op: 'settle'; outcome: 'capacity' | 'pending' | 'failed' | 'unreachable' };

export interface LocalFacilitatorOptions {
  /** USDC base units a never-seen address starts with. */
  startBalanceMicro: number;
  skewSeconds: number;
  now?: () => number;
}

export class LocalFacilitator implements Facilitator {
  readonly kind = 'local' as const;
  private readonly faults: LocalFault[] = [];
  /** Address that "signs" settlements, reported by /supported. */
  readonly signer = getAddress(`0x${'fac1'.padEnd(40, '0')}`);

  constructor(
    private readonly sql: Sql,
    private readonly networks: PaymentNetworks,
    private readonly opts: LocalFacilitatorOptions,
  ) {}

  injectFault(fault: LocalFault): void {
    this.faults.push(fault);
  }

  clearFaults(): void {
    this.faults.length = 0;
  }

  private takeFault<K extends LocalFault['op']>(op: K): Extract<LocalFault, { op: K }> | undefined {
    const i = this.faults.findIndex((f) => f.op === op);
    if (i === -1) return undefined;
    return this.faults.splice(i, 1)[0] as Extract<LocalFault, { op: K }>;
  }

  async getSupported(): Promise<SupportedResponse> {
    return {
      kinds: Object.values(this.networks).map((n) => ({
        x402Version: 2,
        scheme: 'exact',
        network: n.network,
      })),
      extensions: [],
      signers: { 'eip155:*': [this.signer] },
    };
  }

  private async check(
    payload: PaymentPayload,
    req: PaymentRequirements,
  ): Promise<
    | { reason: string; payer?: string }
    | { net: PaymentNetwork; exact: ExactEvmPayload; payer: string }
  > {
    if (req.scheme !== 'exact' || payload.accepted?.scheme !== 'exact')
      return { reason: 'invalid_exact_evm_scheme' };
    const net = networkByCaip2(this.networks, req.network);
    if (!net || payload.accepted.network !== req.network)
      return { reason: 'invalid_exact_evm_network_mismatch' };
    if (!sameAddress(req.asset, net.asset)) return { reason: 'invalid_exact_evm_asset_mismatch' };
    const exact = parseExactEvmPayload(payload.payload);
    if (!exact) return { reason: 'invalid_exact_evm_payload' };
    const payer = exact.authorization.from.toLowerCase();
    const reason = checkAuthorization(exact.authorization, req, {
      nowSeconds: Math.floor((this.opts.now?.() ?? Date.now()) / 1000),
      skewSeconds: this.opts.skewSeconds,
    });
    if (reason) return { reason, payer };
    const signed = await verifyAuthorizationSignature(net, exact).catch((e: unknown) => {
      if (e instanceof SignatureCheckUnavailable) return 'unavailable' as const;
      throw e;
    });
    if (signed === 'unavailable') return { reason: SMART_ACCOUNT_CHECK_UNAVAILABLE, payer };
    if (!signed) return { reason: 'invalid_exact_evm_signature', payer };
    return { net, exact, payer };
  }

  async verify(payload: PaymentPayload, req: PaymentRequirements): Promise<VerifyResponse> {
    const fault = this.takeFault('verify');
    if (fault) return { isValid: false, invalidReason: fault.invalidReason };
    const c = await this.check(payload, req);
    if ('reason' in c) return { isValid: false, invalidReason: c.reason, payer: c.payer };
    const { net, exact, payer } = c;
    const [state] = await this.sql<{ used: boolean; balanceMicro: number }[]>`
      select exists (select 1 from dev_ledger_transfers
                     where network = ${net.network} and asset = ${net.asset} and payer = ${payer}
                       and nonce = ${exact.authorization.nonce} and status <> 'failed') as used,
             coalesce((select balance_micro from dev_ledger_balances
                       where network = ${net.network} and address = ${payer}),
                      dev_ledger_opening(${net.network}, ${payer}, ${this.opts.startBalanceMicro}::bigint)) as balance_micro`;
    if (state!.used)
      return { isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used', payer };
    const balance = state!.balanceMicro;
    if (BigInt(balance) < exact.authorization.value) {
      return { isValid: false, invalidReason: 'invalid_exact_evm_insufficient_balance', payer };
    }
    return { isValid: true, payer };
  }

  settle(payload: PaymentPayload, req: PaymentRequirements): Promise<SettleResponse> {
    return this.settleDetailed(payload, req).then((r) => r.response);
  }

  /**
   * The processor's settle: every check verify makes, atomically with the ledger transfer, so no
   * separate verify round trip is needed. A failure BEFORE anything moved (invalid payload or
   * signature, zero value, nonce already used, insufficient balance, or a queued verify fault) is
   * flagged `rejectedBeforeSettlement`. `settle` itself (what x402ResourceServer and HTTP callers
   * use) gives the same answers without the flag.
   */
  async settleChecked(
    payload: PaymentPayload,
    req: PaymentRequirements,
  ): Promise<CheckedSettlement> {
    const fault = this.takeFault('verify');
    if (fault) {
      return {
        response: {
          success: false,
          errorReason: fault.invalidReason,
          transaction: '',
          network: req.network,
        },
        rejectedBeforeSettlement: true,
      };
    }
    return this.settleDetailed(payload, req);
  }

  /**
   * The transfer as CTEs for the processor's one-statement purchase (see `InlineSettlement`):
   * the same checks as `settleChecked` first, then the ledger writes without conflict handling,
   * so a used nonce or an overdraft aborts the caller's statement whole. Undefined (the caller
   * takes the stepwise path) when a check fails, a fault is queued, the value is zero, or the
   * payer pays itself.
   */
  async inlineSettlement(
    payload: PaymentPayload,
    req: PaymentRequirements,
  ): Promise<InlineSettlement | undefined> {
    if (this.faults.length > 0) return undefined;
    const c = await this.check(payload, req);
    if ('reason' in c) return undefined;
    const t = transferOf(c, transactionHash(), 'confirmed');
    if (t.value <= 0 || t.payer === t.payTo) return undefined;
    return {
      transfer: (sql) => ledgerWrites(sql, this.opts.startBalanceMicro, t, false),
      response: {
        success: true,
        transaction: t.transaction,
        network: req.network,
        payer: t.payer,
        amount: String(t.value),
      },
    };
  }

  private async settleDetailed(
    payload: PaymentPayload,
    req: PaymentRequirements,
  ): Promise<{ response: SettleResponse; rejectedBeforeSettlement: boolean }> {
    const network = req.network;
    const failure = (errorReason: string, payer?: string, transaction = ''): SettleResponse => ({
      success: false,
      errorReason,
      transaction,
      network,
      ...(payer && { payer }),
    });
    const settled = (response: SettleResponse) => ({ response, rejectedBeforeSettlement: false });
    const rejected = (errorReason: string, payer?: string) => ({
      response: failure(errorReason, payer),
      rejectedBeforeSettlement: true,
    });
    const fault = this.takeFault('settle');
    // a facilitator that could not be reached: nothing was asked to move
    if (fault?.outcome === 'unreachable')
      throw new SettlementNotAttempted(
        new Error('local facilitator: simulated connection failure'),
      );
    if (fault?.outcome === 'capacity') return settled(failure('settlement_capacity'));
    if (fault?.outcome === 'failed')
      return settled(failure('invalid_exact_evm_transaction_failed'));

    const c = await this.check(payload, req);
    if ('reason' in c) return rejected(c.reason, c.payer);
    const { exact, payer } = c;
    const value = Number(exact.authorization.value);
    // Zero-value authorizations prove identity; settling one would burn the nonce for nothing.
    if (value <= 0) return rejected('invalid_exact_evm_authorization_value', payer);
    const transaction = transactionHash();
    const status = fault?.outcome === 'pending' ? 'pending' : 'confirmed';
    const payTo = exact.authorization.to.toLowerCase();
    try {
      const t = transferOf(c, transaction, status);
      const start = this.opts.startBalanceMicro;
      const ok =
        payer === payTo
          ? await ledgerTransferToSelf(this.sql, start, t)
          : await ledgerTransfer(this.sql, start, t);
      // nothing recorded, nothing moved
      if (!ok) return rejected('invalid_exact_evm_nonce_already_used', payer);
    } catch (e) {
      const insufficient =
        e instanceof InsufficientFunds || (e as { code?: string }).code === '23514';
      // the overdraft aborted the whole statement (or transaction): nothing recorded, nothing moved
      if (insufficient) return rejected('invalid_exact_evm_insufficient_balance', payer);
      throw e;
    }
    if (status === 'pending') return settled(failure('settlement_pending', payer, transaction));
    return settled({ success: true, transaction, network, payer, amount: String(value) });
  }

  /** Ledger balance in USDC base units (a never-seen address has the start balance, a payout address 0). */
  async balanceOf(network: string, address: string): Promise<number> {
    const a = address.toLowerCase();
    const [row] = await this.sql<{ balanceMicro: number }[]>`
      select coalesce((select balance_micro from dev_ledger_balances where network = ${network} and address = ${a}),
                      dev_ledger_opening(${network}, ${a}, ${this.opts.startBalanceMicro}::bigint)) as balance_micro`;
    return Number(row!.balanceMicro);
  }

  /** Sets a balance (tests, demo data). */
  async setBalance(network: string, address: string, balanceMicro: number): Promise<void> {
    await this.sql`
      insert into dev_ledger_balances (network, address, balance_micro) values (${network}, ${address.toLowerCase()}, ${balanceMicro})
      on conflict (network, address) do update set balance_micro = excluded.balance_micro`;
  }

  /** Resolves a settlement left pending by a fault: the "chain" confirms it or drops it. */
  async resolvePending(transaction: string, outcome: 'confirmed' | 'failed'): Promise<void> {
    await resolveLedgerPending(this.sql, this.opts.startBalanceMicro, transaction, outcome);
  }

  async authorizationState(q: AuthorizationQuery): Promise<AuthorizationState> {
    const [row] = await this.sql<{ transaction: string; status: string }[]>`
      select transaction, status from dev_ledger_transfers
      where network = ${q.network} and lower(asset) = ${q.asset.toLowerCase()} and payer = ${q.payer.toLowerCase()} and nonce = ${q.nonce.toLowerCase()}`;
    if (!row || row.status === 'failed') return { state: 'unused' };
    if (row.status === 'pending') return { state: 'pending', transaction: row.transaction };
    return { state: 'settled', transaction: row.transaction };
  }
}
