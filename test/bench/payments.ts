import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { x402ResourceServer } from '@x402/core/server';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { getAddress, recoverTypedDataAddress, type Hex, type LocalAccount } from 'viem';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createRuntime } from '../../src/runtime.js';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet, signPayment } from '../helpers/wallets.js';

/**
 * Paid acquire completions per second through our whole stack (Fastify, guard, facilitator verify,
 * nonce claim, settlement, order + audit write, signed links) versus a reference paid route built
 * from @x402/core's x402ResourceServer on a bare node:http server, both settling through the same
 * local facilitator and embedded Postgres, in one run. Payments are signed before the clock
 * starts: only the server side is measured. Rounds alternate between the two sides and the median
 * is reported. Also reports the cost of signature recovery alone.
 */
const N = Number(process.env.BENCH_PAYMENTS_N ?? 300);
const CONCURRENCY = Number(process.env.BENCH_PAYMENTS_CONCURRENCY ?? 8);
const WARMUP = 20;
/** Interleaved rounds per side (ours, reference, ours, ...): load drift on a shared VM hits both alike. */
const ROUNDS = Number(process.env.BENCH_PAYMENTS_ROUNDS ?? 3);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function drive(
  url: string,
  headers: string[],
  body?: string,
): Promise<{ perSecond: number; cpuMs: number; failures: number }> {
  let next = 0;
  let failures = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < headers.length) {
        const header = headers[next++]!;
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'payment-signature': header },
          ...(body && { body }),
        });
        await res.arrayBuffer();
        if (res.status !== 200) failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  // Server, client and PGlite share this process: its CPU time per completion is the cost that
  // load from other processes on the machine inflates far less than wall-clock throughput.
  return {
    perSecond: headers.length / seconds,
    cpuMs: (used.user + used.system) / 1000 / headers.length,
    failures,
  };
}

export async function sign(
  wallets: LocalAccount[],
  required: PaymentRequired,
  req: PaymentRequirements,
  n: number,
): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push((await signPayment(wallets[i % wallets.length]!, required, req)).header);
  return out;
}

function referenceServer(resource: x402ResourceServer, accepts: PaymentRequirements[]) {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      void (async () => {
        try {
          const header = req.headers['payment-signature'];
          if (typeof header !== 'string') {
            res.writeHead(402).end();
            return;
          }
          const payload = decodePaymentSignatureHeader(header);
          const requirement = resource.findMatchingRequirements(accepts, payload);
          if (!requirement) {
            res.writeHead(402).end('{"error":"no matching requirement"}');
            return;
          }
          const verified = await resource.verifyPayment(payload, requirement);
          if (!verified.isValid) {
            res.writeHead(402).end(JSON.stringify({ error: verified.invalidReason }));
            return;
          }
          const settled = await resource.settlePayment(payload, requirement);
          res
            .writeHead(settled.success ? 200 : 402, {
              'content-type': 'application/json',
              'PAYMENT-RESPONSE': encodePaymentResponseHeader(settled),
            })
            .end(JSON.stringify({ ok: settled.success }));
        } catch (e) {
          res.writeHead(500).end(String(e));
        }
      })();
    });
  });
}

async function recoveryCost(wallet: LocalAccount, req: PaymentRequirements, n: number) {
  const domain = {
    name: 'USD Coin',
    version: '2',
    chainId: 8453,
    verifyingContract: getAddress(req.asset),
  };
  const msgs = [];
  for (let i = 0; i < n; i++) {
    const message = {
      from: wallet.address,
      to: getAddress(req.payTo),
      value: BigInt(req.amount),
      validAfter: 0n,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 300),
      nonce: `0x${i.toString(16).padStart(64, '0')}` as Hex,
    };
    const signature = await wallet.signTypedData({
      domain,
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message,
    });
    msgs.push({ message, signature });
  }
  const started = performance.now();
  for (const m of msgs) {
    await recoverTypedDataAddress({
      domain,
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      ...m,
    });
  }
  const ms = performance.now() - started;
  return { perSecond: Math.round((n / ms) * 1000), microsecondsEach: Math.round((ms / n) * 1000) };
}

export async function benchPayments(): Promise<Record<string, unknown>> {
  const config = loadConfig({
    EMBEDDED_DB_IN_MEMORY: 'true',
    LOG_LEVEL: 'silent',
    IN_PROCESS_WORKER: 'false',
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    LOCAL_FACILITATOR_START_BALANCE_USDC: '1000000',
    ARCHIVES_DIR: mkdtempSync(path.join(tmpdir(), 'bench-pay-')),
  });
  const runtime = await createRuntime(config, { logger: createLogger(config, 2) });
  const app = await buildApp(config, runtime.deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const ours = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

  const facilitator = runtime.deps.facilitator as LocalFacilitator;
  const resource = new x402ResourceServer(facilitator).register(
    'eip155:8453',
    new ExactEvmScheme(),
  );
  await resource.initialize();

  try {
    const item = await createSaleItem(runtime.deps, { priceUsdc: 0.1 });
    const acquireUrl = `${ours}/api/v1/items/${item.itemId}/acquire`;
    const promptRes = await fetch(acquireUrl, { method: 'POST' });
    const required = JSON.parse(
      Buffer.from(promptRes.headers.get('payment-required')!, 'base64').toString(),
    ) as PaymentRequired;
    const requirement = required.accepts[0]!;
    const refServer = referenceServer(resource, [requirement]);
    await new Promise<void>((r) => refServer.listen(0, '127.0.0.1', r));
    const refUrl = `http://127.0.0.1:${(refServer.address() as AddressInfo).port}/paid`;

    const wallets = Array.from({ length: 40 }, () => newWallet());
    const body = JSON.stringify({ policy_accepted: true, license_accepted: true });
    console.log(`signing ${2 * ROUNDS * N + 2 * WARMUP} payments (not timed)…`);
    const warmOurs = await sign(wallets, required, requirement, WARMUP);
    const warmRef = await sign(wallets, required, requirement, WARMUP);
    const batches: Array<{ ours: string[]; ref: string[] }> = [];
    for (let i = 0; i < ROUNDS; i++) {
      batches.push({
        ours: await sign(wallets, required, requirement, N),
        ref: await sign(wallets, required, requirement, N),
      });
    }
    await drive(acquireUrl, warmOurs, body);
    await drive(refUrl, warmRef);
    // interleaved rounds (A B A B ...), so drift of the machine hits both sides alike
    const o: Array<{ perSecond: number; cpuMs: number; failures: number }> = [];
    const r: Array<{ perSecond: number; cpuMs: number; failures: number }> = [];
    for (const batch of batches) {
      o.push(await drive(acquireUrl, batch.ours, body));
      r.push(await drive(refUrl, batch.ref));
    }
    refServer.close();

    const oursRate = median(o.map((x) => x.perSecond));
    const refRate = median(r.map((x) => x.perSecond));
    // each round's ratio against the reference round right after it; the median of those
    const ratio = median(o.map((x, i) => x.perSecond / r[i]!.perSecond));
    const oursCpu = median(o.map((x) => x.cpuMs));
    const refCpu = median(r.map((x) => x.cpuMs));
    const [{ orders }] = (await runtime.deps.sql<{ orders: number }[]>`
      select count(*)::int as orders from orders where item_id = ${item.itemId}`) as unknown as [
      { orders: number },
    ];
    const recovery = await recoveryCost(wallets[0]!, requirement, 300);
    // The same purchase settled on a local EVM by the in-process chain facilitator, same run.
    const { benchPaymentsOnChain } = await import('./payments-chain.js');
    const onChain = await benchPaymentsOnChain({
      ledgerPerSecond: oursRate,
      refPerSecond: refRate,
    });
    const result = {
      completions: N * ROUNDS,
      rounds: ROUNDS,
      concurrency: CONCURRENCY,
      ours_per_second: Math.round(oursRate),
      reference_per_second: Math.round(refRate),
      ratio_ours_to_reference: Number(ratio.toFixed(2)),
      cpu_ms_per_completion: {
        ours: Number(oursCpu.toFixed(2)),
        reference: Number(refCpu.toFixed(2)),
      },
      cpu_ratio_reference_to_ours: Number((refCpu / oursCpu).toFixed(2)),
      goal: '>= 1.0',
      failures: {
        ours: o.reduce((n, x) => n + x.failures, 0),
        reference: r.reduce((n, x) => n + x.failures, 0),
      },
      orders_written: orders,
      signature_recovery: recovery,
      on_chain: onChain,
    };
    const rounds = (xs: Array<{ perSecond: number }>) =>
      xs.map((x) => Math.round(x.perSecond)).join(', ');
    console.log(
      [
        `paid acquire completions (${N} x ${ROUNDS} interleaved rounds each, concurrency ${CONCURRENCY}, same local facilitator and Postgres):`,
        `  our stack        ${result.ours_per_second}/s median  (rounds ${rounds(o)}; order + audit written per purchase)`,
        `  x402ResourceServer reference ${result.reference_per_second}/s median  (rounds ${rounds(r)}; verify + settle only)`,
        `  ratio            ${result.ratio_ours_to_reference}  (median of per-round ratios; goal >= 1.0)`,
        `  process CPU per completion: ours ${oursCpu.toFixed(2)} ms, reference ${refCpu.toFixed(2)} ms (ratio ${result.cpu_ratio_reference_to_ours}; less load-sensitive)`,
        `  failures         ours ${result.failures.ours}, reference ${result.failures.reference}`,
        `signature recovery alone (viem recoverTypedDataAddress): ${recovery.perSecond}/s, ${recovery.microsecondsEach} µs each`,
      ].join('\n'),
    );
    return result;
  } finally {
    await app.close();
    await runtime.close();
  }
}
