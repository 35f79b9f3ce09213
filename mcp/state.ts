import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { toMicro, toUsdc, type Micro } from '../src/wire/money.js';
import type { SpendingLimits } from './config.js';

/**
 * The MCP server's small local state file (`<MCP_DATA_DIR>/state.json`): the orders this server
 * bought (what `list_my_orders` shows and what stops an accidental second purchase) and a ledger of
 * every payment it signed (what the rolling 24-hour limit sums, so a restart does not reset it).
 * Written atomically (temporary file + rename, mode 0600) after every change; changes from
 * concurrent tool calls are serialised. It holds no key and no signed link; the signatures it
 * keeps are a purchase's or a listing fee's own payment, from just before it is sent until its
 * outcome is known.
 */
export const LocalOrderSchema = z.object({
  order_id: z.string().describe('The marketplace order id'),
  item_id: z.string(),
  wallet: z.string().describe('The buying wallet'),
  title: z.string().optional(),
  seller_username: z.string().optional(),
  price_usdc: z.number(),
  chain: z.string().optional(),
  transaction: z.string().optional().describe('Settlement transaction, when known'),
  status: z
    .enum(['completed', 'settlement_pending', 'released'])
    .describe(
      'settlement_pending: paid, outcome unknown (acquire_item re-sends the same payment to learn it); released: the payment never settled, nothing was charged',
    ),
  bought_at: z.string(),
  local_path: z.string().optional().describe('Where acquire_item saved the archive'),
  unpacked_to: z.string().optional(),
  /**
   * While settlement_pending: the signed payment (`PAYMENT-SIGNATURE`), re-sent unchanged to learn
   * how it ended (same nonce: it can never charge twice), its validBefore, and its ledger entry.
   * Dropped once the outcome is known; list_my_orders never shows them.
   */
  payment: z.string().optional(),
  /** The chain the paid request named, if any (re-sent unchanged: the marketplace digests it). */
  payment_chain: z.enum(['base', 'polygon']).optional(),
  valid_before: z.number().optional(),
  spend_id: z.string().optional(),
});
export type LocalOrder = z.infer<typeof LocalOrderSchema>;
/** An order as list_my_orders shows it: without the kept payment and its ledger entry. */
export const ShownOrderSchema = LocalOrderSchema.omit({
  payment: true,
  payment_chain: true,
  spend_id: true,
});
export const shownOrder = ({ payment: _p, payment_chain: _c, spend_id: _s, ...o }: LocalOrder) => o;

const SpendSchema = z.object({
  id: z.string(),
  wallet: z.string(),
  kind: z.enum(['purchase', 'listing_fee']),
  usdc: z.number(),
  /** The item bought or listed. */
  ref: z.string(),
  at: z.string(),
  /** reserved: signing is under way; spent: the marketplace took (or may have taken) it. */
  state: z.enum(['reserved', 'spent']),
});
type Spend = z.infer<typeof SpendSchema>;

/**
 * A listing fee whose settlement's outcome is not known yet (answered pending, or failed while
 * the transfer may still be mined): the signed fee, re-sent unchanged by the next list_item of
 * the same archive (same nonce: it can never charge twice), with the metadata it was signed for
 * (the marketplace binds the fee to the archive's digest and the metadata). Dropped once the
 * outcome is known.
 */
const PendingFeeSchema = z.object({
  wallet: z.string(),
  /** The archive's SHA-256: what "the same listing" means to list_item. */
  sha256: z.string(),
  fee_usdc: z.number(),
  payment: z.string(),
  payment_chain: z.enum(['base', 'polygon']).optional(),
  valid_before: z.number().optional(),
  spend_id: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()),
  at: z.string(),
});
export type PendingFee = z.infer<typeof PendingFeeSchema>;

const StateSchema = z.object({
  version: z.literal(1),
  orders: z.array(LocalOrderSchema),
  spends: z.array(SpendSchema),
  /** Absent in files written before listing fees were kept. */
  fees: z.array(PendingFeeSchema).default([]),
});
type State = z.infer<typeof StateSchema>;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Why a payment was refused before signing: which limit, its value, and the key that sets it. */
export interface LimitRefusal {
  limit: 'per_purchase' | 'daily' | 'listing_fee';
  key: 'MCP_MAX_PAYMENT_USDC' | 'MCP_DAILY_LIMIT_USDC' | 'MCP_MAX_LISTING_FEE_USDC';
  limitUsdc: number;
  /** For the daily limit: spent in the last 24 hours, and when the oldest of it ages out. */
  spentUsdc?: number;
  frees_at?: string;
}

export class LimitExceeded extends Error {
  constructor(readonly refusal: LimitRefusal) {
    super(`spending limit ${refusal.limit}`);
    this.name = 'LimitExceeded';
  }
}

export class LocalState {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string) {}

  static inDir(dir: string): LocalState {
    return new LocalState(path.join(dir, 'state.json'));
  }

  /** Read afresh for every change, so two servers sharing the file see each other's entries. */
  private async load(): Promise<State> {
    let text: string | undefined;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (text === undefined) return { version: 1, orders: [], spends: [], fees: [] };
    {
      const parsed = StateSchema.safeParse(JSON.parse(text));
      if (!parsed.success)
        throw new Error(
          `The MCP state file ${this.file} is not readable; fix or move it (it holds the 24-hour spending ledger).`,
        );
      return parsed.data;
    }
  }

  /** Runs `fn` alone (no other change in between) and saves the result. */
  private change<T>(fn: (s: State) => T): Promise<T> {
    const run = this.queue.then(async () => {
      const s = await this.load();
      const out = fn(s);
      // Entries older than a day are kept only as orders; the ledger needs the last 24 hours.
      const horizon = Date.now() - 2 * DAY_MS;
      s.spends = s.spends.filter((x) => Date.parse(x.at) > horizon);
      await this.save(s);
      return out;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async save(s: State): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.${randomUUID()}.tmp`;
    await writeFile(tmp, JSON.stringify(s, null, 2), { mode: 0o600 });
    await rename(tmp, this.file);
  }

  private read<T>(fn: (s: State) => T): Promise<T> {
    const run = this.queue.then(async () => fn(await this.load()));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Paid in the last 24 hours by `wallet` (reservations included), in USDC. */
  spentLast24h(wallet: string, now = Date.now()): Promise<number> {
    return this.read((s) => toUsdc(daily(s, wallet, now).total));
  }

  /**
   * Checks the limits for one payment and, when it fits, reserves it in the ledger (persisted
   * before anything is signed, so two concurrent calls cannot both fit in the last bit of budget).
   * Throws `LimitExceeded` naming the limit otherwise.
   */
  reserve(
    wallet: string,
    kind: Spend['kind'],
    usdc: number,
    ref: string,
    limits: SpendingLimits,
  ): Promise<string> {
    return this.change((s) => {
      if (kind === 'purchase' && toMicro(usdc) > toMicro(limits.perPurchase))
        throw new LimitExceeded({
          limit: 'per_purchase',
          key: 'MCP_MAX_PAYMENT_USDC',
          limitUsdc: limits.perPurchase,
        });
      if (kind === 'listing_fee' && toMicro(usdc) > toMicro(limits.listingFee))
        throw new LimitExceeded({
          limit: 'listing_fee',
          key: 'MCP_MAX_LISTING_FEE_USDC',
          limitUsdc: limits.listingFee,
        });
      const now = Date.now();
      const d = daily(s, wallet, now);
      if (d.total + toMicro(usdc) > toMicro(limits.daily))
        throw new LimitExceeded({
          limit: 'daily',
          key: 'MCP_DAILY_LIMIT_USDC',
          limitUsdc: limits.daily,
          spentUsdc: toUsdc(d.total),
          ...(d.oldest !== undefined && { frees_at: new Date(d.oldest + DAY_MS).toISOString() }),
        });
      const id = randomUUID();
      s.spends.push({
        id,
        wallet,
        kind,
        usdc,
        ref,
        at: new Date(now).toISOString(),
        state: 'reserved',
      });
      return id;
    });
  }

  /** The reserved payment was taken (or may have been: a pending settlement counts as spent). */
  spent(id: string): Promise<void> {
    return this.change((s) => {
      const x = s.spends.find((e) => e.id === id);
      if (x) x.state = 'spent';
    });
  }

  /** Nothing was charged: the reservation is returned to the budget. */
  release(id: string): Promise<void> {
    return this.change((s) => {
      s.spends = s.spends.filter((e) => e.id !== id);
    });
  }

  recordOrder(order: LocalOrder): Promise<void> {
    return this.change((s) => {
      const i = s.orders.findIndex((o) => o.order_id === order.order_id);
      const merged = i >= 0 ? { ...s.orders[i], ...order } : order;
      if (merged.status !== 'settlement_pending') {
        // the outcome is known: the kept payment is of no more use
        delete merged.payment;
        delete merged.payment_chain;
        delete merged.valid_before;
        delete merged.spend_id;
      }
      if (i >= 0) s.orders[i] = merged;
      else s.orders.push(merged);
    });
  }

  /** Drops a record kept under a local id (a payment signed before its order was known). */
  forgetOrder(orderId: string): Promise<void> {
    return this.change((s) => {
      s.orders = s.orders.filter((o) => o.order_id !== orderId);
    });
  }

  /** Keeps a signed listing fee until its outcome is known (one per wallet and archive). */
  recordFee(fee: PendingFee): Promise<void> {
    return this.change((s) => {
      s.fees = s.fees.filter((f) => !sameFee(f, fee.wallet, fee.sha256)).concat(fee);
    });
  }

  /** The outcome of the fee for this archive is known: its signature is of no more use. */
  forgetFee(wallet: string, sha256: string): Promise<void> {
    return this.change((s) => {
      s.fees = s.fees.filter((f) => !sameFee(f, wallet, sha256));
    });
  }

  /** The kept listing fee of this wallet for this archive, if its outcome is still unknown. */
  pendingFee(wallet: string, sha256: string): Promise<PendingFee | undefined> {
    return this.read((s) => s.fees.find((f) => sameFee(f, wallet, sha256)));
  }

  /** The wallet's orders, newest first. */
  orders(wallet: string): Promise<LocalOrder[]> {
    return this.read((s) =>
      s.orders
        .filter((o) => o.wallet.toLowerCase() === wallet.toLowerCase())
        .sort((a, b) => b.bought_at.localeCompare(a.bought_at)),
    );
  }

  /** The wallet's latest order of this item, if any (a released payment is none). */
  async orderOfItem(wallet: string, itemId: string): Promise<LocalOrder | undefined> {
    return (await this.orders(wallet)).find((o) => o.item_id === itemId && o.status !== 'released');
  }
}

const sameFee = (f: PendingFee, wallet: string, sha256: string) =>
  f.sha256 === sha256 && f.wallet.toLowerCase() === wallet.toLowerCase();

/** The wallet's ledger of the last 24 hours, summed in base units (no binary-fraction drift). */
function daily(s: State, wallet: string, now: number): { total: Micro; oldest?: number } {
  let total: Micro = 0;
  let oldest: number | undefined;
  for (const x of s.spends) {
    const at = Date.parse(x.at);
    if (x.wallet.toLowerCase() !== wallet.toLowerCase() || at <= now - DAY_MS) continue;
    total += toMicro(x.usdc);
    if (oldest === undefined || at < oldest) oldest = at;
  }
  return { total, ...(oldest !== undefined && { oldest }) };
}
