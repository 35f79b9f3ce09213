import type { MiddlewareHandler } from 'hono';
import { getAddress, verifyTypedData, type Address, type Hex } from 'viem';

export interface PaywallOptions {
  payTo: Address;
  /** USDC in base units (6 decimals), per route path. */
  prices: Record<string, bigint>;
  network: 'base' | 'base-sepolia';
  usdc: Address;
  chainId: number;
  facilitatorUrl: string;
}

interface Authorization {
  from: Address;
  to: Address;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

const TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

export function paywall(opts: PaywallOptions): MiddlewareHandler {
  return async (c, next) => {
    const price = opts.prices[c.req.path];
    if (price === undefined) return next();
    const requirements = {
      scheme: 'exact',
      network: opts.network,
      maxAmountRequired: price.toString(),
      resource: c.req.url,
      payTo: opts.payTo,
      asset: opts.usdc,
      maxTimeoutSeconds: 60,
    };
    const header = c.req.header('X-PAYMENT');
    if (!header) return c.json({ x402Version: 1, accepts: [requirements], error: 'payment required' }, 402);
    const payment = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as {
      payload: { signature: Hex; authorization: Authorization };
    };
    const auth = payment.payload.authorization;
    const now = BigInt(Math.floor(Date.now() / 1000));
    const valid =
      getAddress(auth.to) === getAddress(opts.payTo) &&
      BigInt(auth.value) >= price &&
      BigInt(auth.validAfter) <= now &&
      BigInt(auth.validBefore) > now &&
      (await verifyTypedData({
        address: auth.from,
        domain: { name: 'USD Coin', version: '2', chainId: opts.chainId, verifyingContract: opts.usdc },
        types: TYPES,
        primaryType: 'TransferWithAuthorization',
        message: {
          ...auth,
          value: BigInt(auth.value),
          validAfter: BigInt(auth.validAfter),
          validBefore: BigInt(auth.validBefore),
        },
        signature: payment.payload.signature,
      }));
    if (!valid) return c.json({ x402Version: 1, accepts: [requirements], error: 'invalid payment' }, 402);
    const settled = await fetch(`${opts.facilitatorUrl}/settle`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x402Version: 1, paymentPayload: payment, paymentRequirements: requirements }),
    });
    const result = (await settled.json()) as { success: boolean; transaction?: Hex; errorReason?: string };
    if (!result.success) return c.json({ x402Version: 1, accepts: [requirements], error: result.errorReason }, 402);
    await next();
    c.header('X-PAYMENT-RESPONSE', Buffer.from(JSON.stringify(result)).toString('base64'));
  };
}
