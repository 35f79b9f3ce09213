/**
 * The service in its own process on a devchain (for the kill -9 test): builds the runtime from
 * the environment, optionally seeds one purchasable listing whose payout contracts it deploys,
 * and with CRASH_AFTER_SETTLE=1 kills itself with SIGKILL right after the facilitator settled on
 * chain and before the order is written. Prints one JSON line `{ ready, itemId? }` when listening.
 */
import { loadConfig } from '../../src/config.js';
import { payoutAddressing } from '../../src/chain/payout-address.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime, startBackground } from '../../src/runtime.js';
import { createSaleItem } from './items.js';

const config = loadConfig(process.env);
const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
let itemId: string | undefined;
if (process.env.SEED_ITEM === '1') {
  const item = await createSaleItem(runtime.deps, {
    priceUsdc: 0.5,
    payouts: payoutAddressing(config),
  });
  await runtime.deps.chainPayouts!.deployMissing(runtime.deps.sql);
  itemId = item.itemId;
}
if (process.env.CRASH_AFTER_SETTLE === '1') {
  runtime.deps.payments.testHooks.afterSettle = () => {
    process.kill(process.pid, 'SIGKILL');
  };
}
const app = await buildApp(config, runtime.deps);
if (config.IN_PROCESS_WORKER) startBackground(runtime.deps);
await app.listen({ port: config.PORT, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ ready: true, itemId })}\n`);
process.on('SIGTERM', () => {
  void app.close().then(() => runtime.close().then(() => process.exit(0)));
});
