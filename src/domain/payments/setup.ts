import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import { getAddress, type Address } from 'viem';
import type { Config } from '../../config.js';
import type { Sql } from '../../db/index.js';
import { HttpFacilitator, type Facilitator } from '../../x402/facilitator.js';
import { X402Guard } from '../../x402/guard.js';
import { LocalFacilitator } from '../../x402/local-facilitator.js';
import { paymentNetworks, type PaymentNetworks } from '../../x402/networks.js';
import { usdcToMicro } from '../chains.js';
import { ACQUIRE_OPERATION, SaleItemCache } from '../orders/acquire.js';
import { acquireFulfilment, acquireInlineFulfilment } from '../orders/orders.js';
import { PaymentProcessor } from './processor.js';

export interface PaymentDeps {
  networks: PaymentNetworks;
  facilitator: Facilitator;
  /** The x402 guard for paid and identity routes (src/x402/guard.ts). */
  x402: X402Guard;
  /** Runs paid operations once per authorization (src/domain/payments/processor.ts). */
  payments: PaymentProcessor;
  /** Recipient of platform fees (listing fee): PLATFORM_PAY_TO, or derived from the signing secret. */
  platformPayTo: Address;
  /** Items as acquire prompts need them, briefly cached (src/domain/orders/acquire.ts). */
  saleItems: SaleItemCache;
}

/**
 * Builds the payment stack: the facilitator (HTTP when FACILITATOR_URL is set, else the built-in
 * local one), the guard and the processor with every paid operation's fulfilment registered.
 */
export function createPayments(
  config: Config,
  sql: Sql,
  logger: Logger,
  secrets: { urlSigningKey: Buffer },
): PaymentDeps {
  const networks = paymentNetworks(config);
  const facilitator: Facilitator = config.FACILITATOR_URL
    ? new HttpFacilitator(config.FACILITATOR_URL, networks, config.FACILITATOR_TIMEOUT_MS)
    : new LocalFacilitator(sql, networks, {
        startBalanceMicro: usdcToMicro(config.LOCAL_FACILITATOR_START_BALANCE_USDC),
        skewSeconds: config.X402_CLOCK_SKEW_SECONDS,
      });
  if (facilitator.kind === 'local' && config.DATABASE_URL) {
    logger.warn(
      'payments use the built-in local facilitator (dev ledger): no real USDC moves; set FACILITATOR_URL in production',
    );
  }
  const x402 = new X402Guard({ config, networks, sql, secret: secrets.urlSigningKey });
  const payments = new PaymentProcessor(sql, facilitator, {
    retryAfterSeconds: config.SETTLEMENT_RETRY_AFTER_SECONDS,
    staleSeconds: config.RECONCILE_STALE_SECONDS,
    logger,
  });
  payments.define(ACQUIRE_OPERATION, acquireFulfilment(config), {
    inline: acquireInlineFulfilment(config),
  });
  const platformPayTo = config.PLATFORM_PAY_TO
    ? getAddress(config.PLATFORM_PAY_TO)
    : getAddress(
        `0x${createHmac('sha256', secrets.urlSigningKey).update('platform-pay-to:v1').digest('hex').slice(0, 40)}`,
      );
  return { networks, facilitator, x402, payments, platformPayTo, saleItems: new SaleItemCache() };
}
