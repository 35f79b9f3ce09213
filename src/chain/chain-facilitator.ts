/**
 * A facilitator that settles on chain, in process: the official `@x402/core` `x402Facilitator`
 * with `@x402/evm`'s `ExactEvmScheme` per network, signing and paying gas with the relayer key over
 * the network's RPC. Settlements are serialised per relayer key and chain (their transaction
 * nonces are sequential; concurrent sends from one key collide). The same object backs the
 * standalone facilitator server (tools/chain/facilitator-server.ts).
 *
 * On top of the library's verdicts it tells apart what the spec's outcomes need (7.1): a relayer
 * without gas or an unreachable RPC before anything was sent is `settlement_capacity` (nothing
 * charged); an RPC failure while sending is `settlement_pending` (it may have been broadcast: the
 * reconciler reads the token's authorization state).
 */
import { x402Facilitator } from '@x402/core/facilitator';
import type {
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
  SupportedResponse,
  VerifyResponse,
} from '@x402/core/types';
import { toFacilitatorEvmSigner, type FacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import type { Address } from 'viem';
import type { Chain } from '../wire/chains.js';
import {
  readAuthorizationState,
  type AuthorizationQuery,
  type AuthorizationState,
  type CheckedSettlement,
  type Facilitator,
  SettlementNotAttempted,
} from '../x402/facilitator.js';
import type { PaymentNetworks } from '../x402/networks.js';
import type { ChainClients, Relayer } from './clients.js';

export interface ChainFacilitatorOptions {
  networks: PaymentNetworks;
  relayer: Relayer;
  /** Receipt wait before a settlement is reported pending. */
  confirmationTimeoutMs: number;
  /** Factories the facilitator may call to deploy an ERC-6492 payer before settling. */
  eip6492AllowedFactories?: string[];
}

const OUT_OF_GAS = /insufficient funds|exceeds the balance of the account|enough funds/i;
const RPC_FAILURE =
  /HTTP request failed|fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|timed? ?out/i;

export class ChainFacilitator implements Facilitator {
  readonly kind = 'chain' as const;
  private readonly core = new x402Facilitator();
  private readonly chains = new Map<string, Chain>();

  constructor(private readonly opts: ChainFacilitatorOptions) {
    for (const net of Object.values(opts.networks)) {
      if (!opts.relayer.chains().includes(net.chain)) continue;
      const clients = opts.relayer.clients(net.chain);
      this.chains.set(net.network, net.chain);
      const scheme = new ExactEvmScheme(
        facilitatorSigner(clients, opts.relayer.address, opts.confirmationTimeoutMs),
        { eip6492AllowedFactories: opts.eip6492AllowedFactories ?? [] },
      );
      this.core.register(net.network, scheme);
    }
  }

  get relayerAddress(): Address {
    return this.opts.relayer.address;
  }

  async getSupported(): Promise<SupportedResponse> {
    return this.core.getSupported() as SupportedResponse;
  }

  async verify(payload: PaymentPayload, req: PaymentRequirements): Promise<VerifyResponse> {
    if (!this.chains.has(req.network))
      return { isValid: false, invalidReason: 'invalid_exact_evm_network_mismatch' };
    // Probe first: with the RPC down the library's verify leaves a rejected promise unawaited (its
    // asset check), which would end the process; and the verdict would blame the signature.
    if (!(await this.reachable(req.network))) {
      return { isValid: false, invalidReason: 'rpc_unavailable' };
    }
    const verdict = await this.core.verify(payload, req);
    if (!verdict.isValid && !(await this.reachable(req.network))) {
      return { ...verdict, invalidReason: 'rpc_unavailable' };
    }
    return verdict;
  }

  /** Serialised per chain: one relayer key sends one transaction at a time. */
  async settle(payload: PaymentPayload, req: PaymentRequirements): Promise<SettleResponse> {
    const chain = this.chains.get(req.network);
    if (!chain) {
      return {
        success: false,
        errorReason: 'invalid_exact_evm_network_mismatch',
        transaction: '',
        network: req.network,
      };
    }
    const r = await this.opts.relayer.send(chain, () => this.core.settle(payload, req));
    if (r.success || r.transaction) return r;
    // Nothing mined. Out of gas, or the RPC failing mid-send (maybe broadcast), say so.
    const message = r.errorMessage ?? '';
    if (OUT_OF_GAS.test(message)) return { ...r, errorReason: 'insufficient_gas' };
    if (RPC_FAILURE.test(message) || !(await this.reachable(req.network))) {
      return { ...r, errorReason: 'settlement_pending' };
    }
    return r;
  }

  async settleChecked(
    payload: PaymentPayload,
    req: PaymentRequirements,
  ): Promise<CheckedSettlement> {
    let verdict: VerifyResponse;
    try {
      verdict = await this.verify(payload, req);
    } catch (err) {
      // nothing was sent: the processor answers capacity
      throw new SettlementNotAttempted(err);
    }
    if (!verdict.isValid) {
      const reason = verdict.invalidReason ?? 'verification_failed';
      return {
        response: {
          success: false,
          errorReason: reason,
          transaction: '',
          network: req.network,
          ...(verdict.payer && { payer: verdict.payer }),
        },
        // An unreachable chain is a capacity problem, answered by the processor as such.
        rejectedBeforeSettlement: reason !== 'rpc_unavailable',
      };
    }
    return { response: await this.settle(payload, req), rejectedBeforeSettlement: false };
  }

  authorizationState(q: AuthorizationQuery): Promise<AuthorizationState> {
    return readAuthorizationState(this.opts.networks, q);
  }

  private async reachable(network: string): Promise<boolean> {
    const chain = this.chains.get(network);
    if (!chain) return false;
    try {
      await this.opts.relayer.clients(chain).public.getChainId();
      return true;
    } catch {
      return false;
    }
  }
}

/** The library's signer over our clients (explicit wrappers: viem's own types are stricter). */
function facilitatorSigner(
  clients: ChainClients,
  address: Address,
  confirmationTimeoutMs: number,
): FacilitatorEvmSigner {
  const pub = clients.public;
  const wallet = clients.wallet;
  return toFacilitatorEvmSigner(
    {
      address,
      readContract: (args) => pub.readContract(args as Parameters<typeof pub.readContract>[0]),
      verifyTypedData: (args) =>
        pub.verifyTypedData(args as Parameters<typeof pub.verifyTypedData>[0]),
      writeContract: (args) =>
        wallet.writeContract(args as unknown as Parameters<typeof wallet.writeContract>[0]),
      sendTransaction: (args) => wallet.sendTransaction({ to: args.to, data: args.data }),
      waitForTransactionReceipt: (args) => pub.waitForTransactionReceipt(args),
      getCode: (args) => pub.getCode(args),
    },
    { confirmationTimeoutMs },
  );
}
