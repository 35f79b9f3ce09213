import {
  FacilitatorTimeoutError,
  HTTPFacilitatorClient,
  type FacilitatorClient,
} from '@x402/core/http';
import type {
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  SupportedResponse,
  VerifyResponse,
} from '@x402/core/types';
import { SettleError, VerifyError } from '@x402/core/types';
import type { Sql } from '../db/index.js';
import type { Piece } from '../db/pieces.js';
import {
  decodeEventLog,
  isAddressEqual,
  parseAbi,
  parseAbiItem,
  type Address,
  type Hex,
  type Log,
  type PublicClient,
} from 'viem';
import { networkByCaip2, type PaymentNetworks } from './networks.js';

/**
 * The payment facilitator behind one interface: @x402/core's `FacilitatorClient` (verify, settle,
 * getSupported; so `x402ResourceServer` can use ours too) plus the chain truth the reconciler needs
 * for settlements whose outcome the request never learnt.
 */
export interface Facilitator extends FacilitatorClient {
  /** `local`: the dev ledger; `http`: FACILITATOR_URL; `chain`: in-process, settling on chain. */
  readonly kind: 'local' | 'http' | 'chain';
  authorizationState(q: AuthorizationQuery): Promise<AuthorizationState>;
  /**
   * The one settle call the payment processor makes: every check verify makes, then the transfer.
   * `rejectedBeforeSettlement` says a failure happened before anything could move (invalid
   * signature, nonce used, balance...), which the processor answers exactly as a failed verify.
   * The local facilitator makes the checks atomically with its ledger transfer; an HTTP one calls
   * /verify, then /settle. Throws when the facilitator could not be reached or timed out
   * (`SettlementNotAttempted` when it failed before settlement was requested).
   */
  settleChecked(payload: PaymentPayload, req: PaymentRequirements): Promise<CheckedSettlement>;
  /**
   * Only a facilitator whose ledger lives in our own database (the local one): when the payment
   * passes every check, its transfer as CTEs to run INSIDE the statement that claims and completes
   * the payment (one round trip per purchase). Undefined when the caller must take the stepwise
   * path (a check failed, a fault is queued, a transfer to oneself).
   */
  inlineSettlement?(
    payload: PaymentPayload,
    req: PaymentRequirements,
  ): Promise<InlineSettlement | undefined>;
}

/**
 * A transfer to splice into a larger statement: `transfer` is the piece that moves the money once
 * per row of the relation `ledger_gate`, which the statement names before it (one row, or none),
 * and names the relation `ledger_transfer`, with one row when it moved. The surrounding statement
 * must not swallow conflicts: a nonce the ledger has seen, or an overdraft, aborts it whole (a
 * unique or check violation), so nothing moves unless everything commits.
 */
export interface InlineSettlement {
  /**
   * Built with the tag of the statement it joins (the purchase records its fragments instead of
   * making postgres.js queries: src/db/statement.ts), like the operation's own pieces.
   */
  transfer(sql: Sql): Piece<'ledger_transfer', 'ledger_gate'>;
  /** What the facilitator answers once the statement committed. */
  response: SettleResponse;
}

export interface CheckedSettlement {
  response: SettleResponse;
  rejectedBeforeSettlement: boolean;
}

export interface AuthorizationQuery {
  network: string;
  asset: string;
  payer: string;
  nonce: string;
  /** The settlement transaction when one is known. */
  transaction?: string;
  /**
   * When the payment was claimed: a used authorization's transaction is looked for back to (an
   * hour before) it. Without it, the last `AUTHORIZATION_LOOKBACK_BLOCKS` only.
   */
  since?: Date;
}

/**
 * Why the chain could not be read: the JSON-RPC method that failed (and its error code when the
 * node answered one), or no RPC URL configured for the network (`method` undefined).
 */
export interface ChainReadFailure {
  network: string;
  method?: string;
  code?: number;
}

export type AuthorizationState =
  /** Used: `transaction` moved the money ('' when no transaction can be named). */
  | { state: 'settled'; transaction: string }
  /**
   * A transaction broadcast and not mined. Read from a chain: the token says the nonce is unused
   * as of the head block whose time is `chainTime`.
   */
  | { state: 'pending'; transaction?: string; chainTime?: number }
  /**
   * Not used (and the known transaction, if any, did not use it). Read from a chain: as of the
   * head block whose time is `chainTime`.
   */
  | { state: 'unused'; chainTime?: number }
  | { state: 'unknown'; cause?: ChainReadFailure };

/** How the processor reads a facilitator answer (spec 7.1). */
export type SettleOutcome =
  | { kind: 'settled'; response: SettleResponse }
  | { kind: 'capacity'; reason: string }
  | { kind: 'pending'; transaction: string; network: string; reason: string }
  | { kind: 'failed'; reason: string; response?: SettleResponse };

const CAPACITY_REASONS = new Set([
  'settlement_capacity',
  'facilitator_unavailable',
  'service_unavailable',
  'rate_limited',
  'relayer_busy',
  'insufficient_gas',
  'rpc_unavailable',
]);
const PENDING_REASONS = new Set([
  'settlement_pending',
  'transaction_pending',
  'settlement_timeout',
]);

/** Maps a settle answer, an HTTP status or a thrown error onto the four spec outcomes. */
export function classifySettle(r: SettleResponse, httpStatus?: number): SettleOutcome {
  if (r.success) return { kind: 'settled', response: r };
  // no reason is no definite x402 failure (a 200 in the settle shape from whatever answered):
  // the transfer may have gone out, the chain decides
  if (!r.errorReason)
    return {
      kind: 'pending',
      transaction: r.transaction ?? '',
      network: r.network,
      reason: 'settlement_unknown',
    };
  const reason = r.errorReason;
  if (PENDING_REASONS.has(reason) || (r.transaction && /pending|timeout/.test(reason))) {
    return { kind: 'pending', transaction: r.transaction ?? '', network: r.network, reason };
  }
  if (CAPACITY_REASONS.has(reason) || httpStatus === 429 || httpStatus === 503) {
    // "busy" that names a transaction: it may have been broadcast, so the chain decides it
    if (r.transaction)
      return { kind: 'pending', transaction: r.transaction, network: r.network, reason };
    return { kind: 'capacity', reason };
  }
  return { kind: 'failed', reason, response: r };
}

/**
 * Thrown by a facilitator's `settleChecked` when it failed before asking anything to move money
 * (the HTTP facilitator's /verify could not be reached or answered nonsense): the claim can be
 * released as `capacity`.
 */
export class SettlementNotAttempted extends Error {
  constructor(cause: unknown) {
    super('the facilitator failed before settlement was requested', { cause });
    this.name = 'SettlementNotAttempted';
  }
}

/** Connection errors that happen before a request's first byte is written. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** Whether a fetch failure is a connection that was never made (`fetch failed`, cause.code). */
function neverConnected(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown; errors?: { code?: unknown }[] } }).cause;
  if (!cause) return false;
  if (NOT_CONNECTED.has(String(cause.code))) return true;
  // happy eyeballs: every address refused (an AggregateError)
  const all = cause.errors;
  return (
    Array.isArray(all) && all.length > 0 && all.every((e) => NOT_CONNECTED.has(String(e.code)))
  );
}

/**
 * A thrown settle call. `capacity` (claim released, "nothing was charged") only when the
 * facilitator provably never received the settle request or itself answered that it did not
 * process it: a failure before settlement was asked (`SettlementNotAttempted`), a connection that
 * was never made, or the facilitator's own x402 settle body (an `errorReason`) with 429/503 or a
 * busy reason, naming no transaction. Anything else after /settle was sent (a timeout, a
 * connection lost mid-answer, an unreadable 200, any status without an x402 body: a proxy's
 * 502/503/504 or 429 page, sent after its upstream may have taken the request) may follow a
 * broadcast: `pending`, decided from the chain by the reconciler.
 */
export function classifySettleError(err: unknown, network: string): SettleOutcome {
  if (err instanceof SettleError) {
    const r: SettleResponse = {
      success: false,
      errorReason: err.errorReason ?? 'settlement_failed',
      transaction: err.transaction ?? '',
      network: (err.network ?? network) as SettleResponse['network'],
    };
    // JSON with `success` but no reason is not a facilitator's settle answer, at any status: a
    // gateway's 429/503, a WAF's or an API gateway's 4xx envelope (`{"success":false,"errors":…}`)
    // or a load balancer's 408 does not say the request went unprocessed
    const ownAnswer = typeof err.errorReason === 'string' && err.errorReason !== '';
    if (!ownAnswer)
      return {
        kind: 'pending',
        transaction: r.transaction,
        network: r.network,
        reason: 'settlement_unknown',
      };
    return classifySettle(r, err.statusCode);
  }
  if (err instanceof FacilitatorTimeoutError)
    return { kind: 'pending', transaction: '', network, reason: 'settlement_timeout' };
  if (err instanceof SettlementNotAttempted || neverConnected(err))
    return { kind: 'capacity', reason: 'facilitator_unavailable' };
  // @x402/core's HTTP client: `Facilitator settle failed (<status>): <non-x402 body>`, a page from
  // whatever answered (a proxy, a load balancer), which cannot say the facilitator never acted
  return { kind: 'pending', transaction: '', network, reason: 'settlement_unknown' };
}

const EIP3009_STATE_ABI = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
]);
const AUTHORIZATION_USED = parseAbiItem(
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
);
/**
 * How many blocks one `eth_getLogs` asks for (about 5 h of 2 s blocks; many providers refuse
 * wider ranges), and how far back the search goes without a claim time.
 */
const AUTHORIZATION_LOOKBACK_BLOCKS = 10_000n;
/** Margin before the claim's time where the search stops (clocks, a transfer sent early). */
const SINCE_MARGIN_SECONDS = 3_600;

/** A chain read that failed: which JSON-RPC method, for the operator's warning. */
class ChainReadError extends Error {
  constructor(
    readonly method: string,
    readonly code: number | undefined,
    options: { cause: unknown },
  ) {
    super(`${method} failed`, options);
  }
}

/** Runs one RPC call; its failure names the method (and the node's error code, if any). */
async function reading<T>(method: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ChainReadError) throw err;
    throw new ChainReadError(method, rpcErrorCode(err), { cause: err });
  }
}

/** The JSON-RPC error code viem's error chain carries (none for a transport failure). */
function rpcErrorCode(err: unknown): number | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined; e;) {
    if (typeof e.code === 'number') return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/**
 * The transaction that used an authorization, from the token's `AuthorizationUsed` event (when
 * the settlement's own answer was lost, e.g. the process died after broadcast). Searched backwards
 * from the head in windows of `AUTHORIZATION_LOOKBACK_BLOCKS`, down to the first window that
 * starts before the claim (`since`, less a margin) or to the genesis: a transfer mined more than
 * one window ago is found too. Undefined when the whole range holds no event (a node that keeps
 * no such logs); a failed read throws (the caller asks again later).
 */
async function usedAuthorizationTransaction(
  rpc: PublicClient,
  q: AuthorizationQuery,
  latest: bigint,
): Promise<string | undefined> {
  const stopAt = q.since ? Math.floor(q.since.getTime() / 1000) - SINCE_MARGIN_SECONDS : undefined;
  for (let to = latest; to >= 0n;) {
    const from = to >= AUTHORIZATION_LOOKBACK_BLOCKS ? to - AUTHORIZATION_LOOKBACK_BLOCKS + 1n : 0n;
    const logs = await reading('eth_getLogs', () =>
      rpc.getLogs({
        address: q.asset as Address,
        event: AUTHORIZATION_USED,
        args: { authorizer: q.payer as Address, nonce: q.nonce as Hex },
        fromBlock: from,
        toBlock: to,
      }),
    );
    const hash = logs[0]?.transactionHash;
    if (hash) return hash;
    if (from === 0n || stopAt === undefined) return undefined;
    const start = await reading('eth_getBlockByNumber', () => rpc.getBlock({ blockNumber: from }));
    if (Number(start.timestamp) <= stopAt) return undefined;
    to = from - 1n;
  }
  return undefined;
}

/**
 * A standard x402 facilitator over HTTP (`FACILITATOR_URL`): the wire protocol is @x402/core's
 * `HTTPFacilitatorClient`; this adds the 4xx verdicts as answers rather than exceptions and chain
 * reads over RPC for reconciliation.
 */
export class HttpFacilitator implements Facilitator {
  readonly kind = 'http' as const;
  private readonly client: HTTPFacilitatorClient;

  constructor(
    url: string,
    private readonly networks: PaymentNetworks,
    timeoutMs = 30_000,
  ) {
    this.client = new HTTPFacilitatorClient({ url, timeoutMs });
  }

  async verify(payload: PaymentPayload, req: PaymentRequirements): Promise<VerifyResponse> {
    try {
      return await this.client.verify(payload, req);
    } catch (err) {
      if (err instanceof VerifyError) {
        return {
          isValid: false,
          invalidReason: err.invalidReason ?? 'verification_failed',
          invalidMessage: err.invalidMessage,
          payer: err.payer,
        };
      }
      throw err;
    }
  }

  settle(payload: PaymentPayload, req: PaymentRequirements): Promise<SettleResponse> {
    return this.client.settle(payload, req);
  }

  async settleChecked(
    payload: PaymentPayload,
    req: PaymentRequirements,
  ): Promise<CheckedSettlement> {
    let verdict: VerifyResponse;
    try {
      verdict = await this.verify(payload, req);
    } catch (err) {
      // /settle was never called: nothing can have moved
      throw new SettlementNotAttempted(err);
    }
    if (!verdict.isValid) {
      return {
        response: {
          success: false,
          errorReason: verdict.invalidReason ?? 'verification_failed',
          transaction: '',
          network: req.network,
          ...(verdict.payer && { payer: verdict.payer }),
        },
        rejectedBeforeSettlement: true,
      };
    }
    return { response: await this.settle(payload, req), rejectedBeforeSettlement: false };
  }

  getSupported(): Promise<SupportedResponse> {
    return this.client.getSupported();
  }

  authorizationState(q: AuthorizationQuery): Promise<AuthorizationState> {
    return readAuthorizationState(this.networks, q);
  }
}

/**
 * What the chain says about one authorization, as of ONE head block (`latest`, read first): the
 * receipt of the known transaction counts only when its logs hold the token's
 * `AuthorizationUsed(payer, nonce)` from the asset (a hash that moved nothing, or moved another
 * authorization, places no order); else the token's own `authorizationState` at that head decides
 * (a used authorization moved the money, whoever sent it). Unused or pending carry the head's
 * timestamp: the token rejects the transfer only once `block.timestamp >= validBefore`, so
 * whether the window closed is the chain's clock to say, not ours. `unknown` without RPC or when
 * the chain (its head included) cannot be read.
 */
export async function readAuthorizationState(
  networks: PaymentNetworks,
  q: AuthorizationQuery,
): Promise<AuthorizationState> {
  const rpc = networkByCaip2(networks, q.network)?.rpc;
  if (!rpc) return { state: 'unknown', cause: { network: q.network } };
  try {
    const head = await reading('eth_getBlockByNumber', () => rpc.getBlock({ blockTag: 'latest' }));
    if (head.number == null) {
      return { state: 'unknown', cause: { network: q.network, method: 'eth_getBlockByNumber' } };
    }
    const chainTime = Number(head.timestamp);
    const receipt = q.transaction
      ? await rpc.getTransactionReceipt({ hash: q.transaction as Hex }).catch(() => undefined)
      : undefined;
    if (receipt?.status === 'success' && receipt.logs.some((l) => usesAuthorization(l, q)))
      return { state: 'settled', transaction: receipt.transactionHash };
    const used = await reading('eth_call', () =>
      rpc.readContract({
        address: q.asset as Address,
        abi: EIP3009_STATE_ABI,
        functionName: 'authorizationState',
        args: [q.payer as Address, q.nonce as Hex],
        blockNumber: head.number,
      }),
    );
    if (used) {
      // The known transaction did not use it (no receipt, reverted, or another transfer): another
      // one did (a resubmission, a replacement), which the token's event names. Not found in the
      // whole range searched, no hash is recorded rather than one that moved nothing; a search
      // that failed is asked again later rather than recorded without the hash.
      return {
        state: 'settled',
        transaction: (await usedAuthorizationTransaction(rpc, q, head.number)) ?? '',
      };
    }
    // Broadcast but not mined yet: it may still land.
    if (q.transaction && !receipt)
      return { state: 'pending', transaction: q.transaction, chainTime };
    return { state: 'unused', chainTime };
  } catch (err) {
    const failed = err instanceof ChainReadError ? err : undefined;
    return {
      state: 'unknown',
      cause: {
        network: q.network,
        method: failed?.method ?? 'unknown',
        ...(failed?.code !== undefined && { code: failed.code }),
      },
    };
  }
}

/** Whether a receipt's log is the token's `AuthorizationUsed` event for this authorization. */
function usesAuthorization(log: Log, q: AuthorizationQuery): boolean {
  if (!isAddressEqual(log.address, q.asset as Address)) return false;
  try {
    const event = decodeEventLog({ abi: [AUTHORIZATION_USED], data: log.data, topics: log.topics });
    return (
      isAddressEqual(event.args.authorizer, q.payer as Address) &&
      event.args.nonce.toLowerCase() === q.nonce.toLowerCase()
    );
  } catch {
    return false;
  }
}
