import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicClient, getAddress, http } from 'viem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDevChain, type DevChain } from '../../tools/chain/devchain.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';
import { freePort } from '../helpers/app.js';
import { chainEnv, signedAcquire } from '../helpers/chain.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * Heavy (two service processes booting on disk; `npm run test:heavy`): the service killed with
 * SIGKILL after its settlement was mined and before the order was written; after a restart the
 * reconciler completes the order from the chain.
 */
let chain: DevChain;
beforeAll(async () => {
  chain = await startDevChain({ chains: ['base', 'polygon'] });
});
afterAll(() => chain?.close());

async function usdcBalance(address: string): Promise<bigint> {
  const { TestUSDC } = await import('../../src/chain/artifacts.js');
  return createPublicClient({ transport: http(chain.rpcUrls.base) }).readContract({
    address: chain.usdc.base,
    abi: TestUSDC.abi,
    functionName: 'balanceOf',
    args: [getAddress(address)],
  });
}

it('kill -9 after the settlement is mined and before the order is written: after restart the reconciler completes it', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'chain-crash-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    ...chainEnv(chain, getAddress(newWallet().address)),
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_BASE_URL: base,
    LOG_LEVEL: 'info',
  };
  const start = (extra: Record<string, string>) =>
    new Promise<{ child: ChildProcess; itemId?: string; stderr: () => string }>(
      (resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', 'test/helpers/chain-service-child.ts'],
          { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        let err = '';
        child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const line = out.split('\n').find((l) => l.startsWith('{"ready"'));
          if (line) {
            const { itemId } = JSON.parse(line) as { itemId?: string };
            resolve({ child, ...(itemId && { itemId }), stderr: () => err });
          }
        });
        child.once('exit', (code) =>
          reject(new Error(`child exited ${code}: ${err.slice(-2000)}`)),
        );
      },
    );
  const step = (what: string) => console.log(`${new Date().toISOString()} ${what}`);
  try {
    step('starting the service (crashes after settling)');
    const first = await start({
      SEED_ITEM: '1',
      CRASH_AFTER_SETTLE: '1',
      IN_PROCESS_WORKER: 'false',
    });
    const buyer = newWallet();
    await chain.fundUsdc('base', buyer.address, 1_000_000n);
    const signed = await signedAcquire(base, buyer, first.itemId!, 'base');
    const died = new Promise<NodeJS.Signals | null>((r) =>
      first.child.once('exit', (_c, s) => r(s)),
    );
    await expect(signed.send()).rejects.toThrow();
    expect(await died).toBe('SIGKILL');
    // Broadcast and mined: the buyer paid, and no order exists yet.
    expect(await usdcBalance(buyer.address)).toBe(500_000n);

    step('killed after settlement; restarting');
    const second = await start({
      IN_PROCESS_WORKER: 'true',
      RECONCILE_INTERVAL_SECONDS: '1',
      RECONCILE_STALE_SECONDS: '0',
    });
    step('restarted; waiting for the reconciler');
    const deadline = Date.now() + 60_000;
    while (!/"task":"reconcile".*"completed":1/.test(second.stderr()) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(second.stderr()).toMatch(/"task":"reconcile".*"completed":1/);
    // The buyer's retry of the same signed request answers the completed order, not a new charge.
    const retry = await signed.send();
    expect(retry.status).toBe(200);
    const { order_id } = (await retry.json()) as { order_id: string };
    const exited = new Promise((r) => second.child.once('exit', r));
    second.child.kill('SIGTERM');
    await exited;

    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      IN_PROCESS_WORKER: 'false',
    });
    const rt = await createRuntime(config, { logger: createLogger(config, 2) });
    try {
      const orders = await rt.deps.sql<{ id: string; transaction: string }[]>`
        select id, transaction from orders where item_id = ${first.itemId!}`;
      expect(orders).toHaveLength(1);
      expect(orders[0]!.id).toBe(order_id);
      const receipt = await createPublicClient({
        transport: http(chain.rpcUrls.base),
      }).getTransactionReceipt({ hash: orders[0]!.transaction as `0x${string}` });
      expect(receipt.status).toBe('success');
    } finally {
      await rt.close();
    }
    expect(await usdcBalance(buyer.address)).toBe(500_000n);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 480_000);
