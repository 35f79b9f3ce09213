import { createPublicClient, http, isErc6492Signature, type Hex, type PublicClient } from 'viem';
import { BoundedCache } from '../bounded-cache.js';

/** The chain could not be asked in time (timeout, outage, every slot busy): not a verdict. */
export class SignatureCheckUnavailable extends Error {
  constructor(cause?: unknown) {
    super('the smart-account signature could not be checked on chain right now', { cause });
  }
}

export interface SmartAccountOptions {
  /** Per RPC call; no retries. */
  timeoutMs: number;
  /** RPC calls in flight at once for this chain; beyond that a check is refused at once. */
  concurrency: number;
  /** How long an address found without code (or not found at all) is not asked again. */
  noCodeTtlMs: number;
  now?: () => number;
}

type CodeState = { state: 'code' | 'none' | 'unknown'; until: number };

/** An address with code keeps it: asked again only after this long. */
const CODE_TTL_MS = 60 * 60 * 1000;
const ENTRIES = 10_000;

/**
 * Smart-account signatures (EIP-1271 `isValidSignature`, ERC-6492 for accounts not deployed yet)
 * over one chain's RPC, asked only when an EOA recovery did not already decide, and bounded so a
 * forged signature costs the chain nothing or next to nothing:
 * - an address that has signed here as an EOA (its key recovered) is a key holder, never a
 *   contract: a signature that does not recover to it is refused without any call;
 * - otherwise only an address with code (`eth_getCode`, cached: an hour when found, `noCodeTtlMs`
 *   when absent or unreadable) is asked, except an ERC-6492 signature, which names its own
 *   deployment;
 * - every call has a short timeout and no retry, and at most `concurrency` are in flight: past
 *   that, or when the chain does not answer, the check throws `SignatureCheckUnavailable`.
 */
export class SmartAccountVerifier {
  private readonly client: PublicClient;
  private readonly eoas = new BoundedCache<string, true>(ENTRIES);
  private readonly code = new BoundedCache<string, CodeState>(ENTRIES);
  private inFlight = 0;

  constructor(
    url: string,
    private readonly opts: SmartAccountOptions,
  ) {
    this.client = createPublicClient({
      transport: http(url, { timeout: opts.timeoutMs, retryCount: 0 }),
    });
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  /** `address` produced a valid ECDSA signature: it holds a key, so it is no contract. */
  rememberEoa(address: string): void {
    this.eoas.set(address.toLowerCase(), true);
  }

  /**
   * True when the account at `address` accepts `signature` (`ask` runs viem's check on the bounded
   * client); false when no account there could. Throws `SignatureCheckUnavailable`.
   */
  async accepts(
    address: string,
    signature: Hex,
    ask: (client: PublicClient) => Promise<boolean>,
  ): Promise<boolean> {
    const key = address.toLowerCase();
    if (this.eoas.peek(key)) return false;
    if (!isErc6492Signature(signature) && !(await this.hasCode(key))) return false;
    return this.limited(() => ask(this.client));
  }

  private async hasCode(address: string): Promise<boolean> {
    const known = this.code.peek(address);
    if (known && known.until > this.now()) {
      if (known.state === 'unknown') throw new SignatureCheckUnavailable();
      return known.state === 'code';
    }
    let state: CodeState['state'];
    try {
      const code = await this.limited(() =>
        this.client.getCode({ address: address as `0x${string}` }),
      );
      state = code && code !== '0x' ? 'code' : 'none';
    } catch (e) {
      // unreadable: not asked again for a while either, so a flood of forgeries stays cheap
      this.code.set(address, { state: 'unknown', until: this.now() + this.opts.noCodeTtlMs });
      throw e instanceof SignatureCheckUnavailable ? e : new SignatureCheckUnavailable(e);
    }
    const ttl = state === 'code' ? CODE_TTL_MS : this.opts.noCodeTtlMs;
    this.code.set(address, { state, until: this.now() + ttl });
    return state === 'code';
  }

  private async limited<T>(call: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.opts.concurrency) throw new SignatureCheckUnavailable();
    this.inFlight++;
    try {
      return await call();
    } catch (e) {
      throw e instanceof SignatureCheckUnavailable ? e : new SignatureCheckUnavailable(e);
    } finally {
      this.inFlight--;
    }
  }
}
