import type { PaymentPayload } from '@x402/core/types';
import { vi } from 'vitest';
import { startFakeFacilitator, type FakeFacilitator } from './fake-facilitator.js';
import { startFakeRpc, type FakeRpc } from './fake-rpc.js';
import { startSellingApp, type SellingContext } from './selling.js';

/** A selling app that pays through a remote facilitator and reads the chain, both on loopback. */
export interface RemoteRail {
  t: SellingContext;
  /** The facilitator, speaking the x402 wire protocol. */
  fake: FakeFacilitator;
  /** The chain, over JSON-RPC (the token's `authorizationState`, its logs). */
  rpc: FakeRpc;
  close(): Promise<void>;
}

/**
 * Starts the app on a remote rail. Tests that move the clock past a payment's window pass a high
 * `RECONCILE_STALE_SECONDS`, so that nothing still settling across the jump looks abandoned.
 */
export async function startRemoteRail(env: Record<string, string> = {}): Promise<RemoteRail> {
  const fake = await startFakeFacilitator();
  const rpc = await startFakeRpc();
  const t = await startSellingApp({
    FACILITATOR_URL: fake.url,
    FACILITATOR_TIMEOUT_MS: '3000',
    RPC_URL_BASE: rpc.url,
    RPC_URL_POLYGON: rpc.url,
    ...env,
  }).catch(async (err: unknown) => {
    await Promise.all([fake.close(), rpc.close()]);
    throw err;
  });
  return {
    t,
    fake,
    rpc,
    close: async () => {
      await t.close();
      await fake.close();
      await rpc.close();
    },
  };
}

/** An EIP-3009 payload's `validBefore` (unix seconds). */
export const validBeforeOf = (payload: PaymentPayload) =>
  Number((payload.payload as { authorization: { validBefore: string } }).authorization.validBefore);

/** Runs `then` with the clock (Date only) moved to `unixSeconds`. */
export async function at<T>(unixSeconds: number, then: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(unixSeconds * 1000);
  try {
    return await then();
  } finally {
    vi.useRealTimers();
  }
}
