import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PaymentRequired } from '@x402/core/types';
import { getAddress } from 'viem';
import { startDevChain } from '../../tools/chain/devchain.js';
import { payoutAddressing } from '../../src/chain/payout-address.js';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';
import { chainEnv } from '../helpers/chain.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet } from '../helpers/wallets.js';
import type { LocalAccount } from 'viem';
import type { PaymentRequirements } from '@x402/core/types';

type Round = {
  perSecond: number;
  cpuMs: number;
  failures: number;
  statuses?: Record<number, number>;
};

const N = Number(process.env.BENCH_PAYMENTS_CHAIN_N ?? 150);
const ROUNDS = Number(process.env.BENCH_PAYMENTS_ROUNDS ?? 3);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Paid acquire completions per second with PAYMENT_RAIL=chain: the whole stack, settling each
 * purchase on a local EVM (hardhat, automine) through the in-process chain facilitator (the
 * official @x402/evm scheme: verify with simulation, then transferWithAuthorization sent by the
 * relayer and its receipt awaited), serialised per relayer key. The chain runs in this process,
 * so the CPU figure includes the EVM.
 */
export async function benchPaymentsOnChain(baseline: {
  ledgerPerSecond: number;
  refPerSecond: number;
  /** The payments bench's load driver (a child process) and signer. */
  round(url: string, headers: string[], body?: string): Promise<Round>;
  sign(
    wallets: LocalAccount[],
    required: PaymentRequired,
    req: PaymentRequirements,
    n: number,
  ): Promise<string[]>;
}): Promise<Record<string, unknown>> {
  const { round: drive, sign } = baseline;
  const chain = await startDevChain();
  const config = loadConfig({
    EMBEDDED_DB_IN_MEMORY: 'true',
    LOG_LEVEL: 'silent',
    IN_PROCESS_WORKER: 'false',
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'bench-chain-')),
    ...chainEnv(chain, getAddress(newWallet().address)),
  });
  const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
  const app = await buildApp(config, runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const item = await createSaleItem(runtime.deps, {
      priceUsdc: 0.1,
      payouts: payoutAddressing(config),
    });
    await runtime.deps.chainPayouts!.deployMissing(runtime.deps.sql);
    runtime.deps.saleItems.invalidateSeller(item.seller.id);
    const url = `${base}/api/v1/items/${item.itemId}/acquire`;
    const body = JSON.stringify({ chain: 'base', policy_accepted: true, license_accepted: true });
    const prompt = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    const required = JSON.parse(
      Buffer.from(prompt.headers.get('payment-required')!, 'base64').toString(),
    ) as PaymentRequired;
    const requirement = required.accepts.find((a) => a.network === 'eip155:8453')!;
    const wallets = Array.from({ length: 40 }, () => newWallet());
    for (const w of wallets) await chain.fundUsdc('base', w.address, 1_000_000_000n);
    console.log(`on chain: signing ${ROUNDS * N + 10} payments (not timed)…`);
    const warm = await sign(wallets, required, requirement, 10);
    const batches = [];
    for (let i = 0; i < ROUNDS; i++) batches.push(await sign(wallets, required, requirement, N));
    await drive(url, warm, body);
    const rounds = [];
    for (const b of batches) rounds.push(await drive(url, b, body));
    const perSecond = median(rounds.map((r) => r.perSecond));
    const cpuMs = median(rounds.map((r) => r.cpuMs));
    const result = {
      completions: N * ROUNDS,
      per_second: Math.round(perSecond),
      cpu_ms_per_completion: Number(cpuMs.toFixed(2)),
      ratio_to_dev_ledger: Number((perSecond / baseline.ledgerPerSecond).toFixed(2)),
      ratio_to_reference: Number((perSecond / baseline.refPerSecond).toFixed(2)),
      failures: rounds.reduce((n, r) => n + r.failures, 0),
      statuses: rounds.reduce<Record<number, number>>((all, r) => {
        for (const [k, v] of Object.entries(r.statuses ?? {})) all[+k] = (all[+k] ?? 0) + v;
        return all;
      }, {}),
    };
    console.log(
      [
        `paid acquire completions settled on a local EVM (chain facilitator, ${N} x ${ROUNDS} rounds):`,
        `  on chain         ${result.per_second}/s median  (rounds ${rounds.map((r) => Math.round(r.perSecond)).join(', ')})`,
        `  vs dev ledger    ${result.ratio_to_dev_ledger}, vs reference ${result.ratio_to_reference}`,
        `  process CPU per completion ${result.cpu_ms_per_completion} ms (the EVM runs in this process)`,
        `  failures         ${result.failures} (answers by status: ${JSON.stringify(result.statuses)})`,
      ].join('\n'),
    );
    return result;
  } finally {
    await app.close();
    await runtime.close();
    await chain.close();
  }
}
