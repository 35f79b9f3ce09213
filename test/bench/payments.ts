import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import secp256k1 from 'secp256k1';
import {
  getAddress,
  hashTypedData,
  recoverTypedDataAddress,
  verifyTypedData,
  type Hex,
} from 'viem';
import type { Sql } from '../../src/db/index.js';
import { decodePaymentSignatureHeader as decodeFast } from '../../src/x402/codec.js';
import { ledgerTransfer } from '../../src/x402/ledger-sql.js';
import { newWallet, signerOfProof, signHeaders } from '../helpers/wallets.js';
import { cpuMs, Driver, median, type Round } from './load.js';
import { paidServer } from './paid-server.js';

/**
 * Paid acquire completions through our whole stack (Fastify, guard, nonce claim, settlement, order +
 * legal audit row, signed links) measured in one run against:
 *
 * 1. the FLOOR of a paid completion: one signature recovery with the fastest secp256k1 on the npm
 *    registry (the native `secp256k1` binding) plus one minimal durable insert (a nonce row) in the
 *    same database. Reported: our server process's CPU per completion / the floor's. Goal <= 5.
 * 2. an INDEPENDENT reference route a user could write instead: a bare `node:http` handler that
 *    decodes the header with @x402/core, verifies with @x402/evm's own `exact` facilitator scheme
 *    (signature, recipient, window, amount; a signer with no chain behind it) and settles with the
 *    dev-ledger statement. It shares none of our payment modules, only the database and that
 *    statement. Reported: our completions per second / the reference's. Goal >= 1.5.
 * 3. a MINIMAL route, for the record: the reference with our fastest decoder and recovery (native
 *    Keccak and secp256k1) in place of @x402/core's and @x402/evm's. What settling on this ledger costs any route before it records an
 *    order, an audit row or a payment: its CPU / the floor, and ours / its.
 *
 * The HTTP load comes from a child process (./payments-driver.ts), so this process's CPU time per
 * completion is the server's alone (PGlite runs in it too). Payments are signed before the clock
 * starts. Rounds interleave ours, reference, floor, ours, ...; medians of per-round ratios, after
 * warm-up rounds of the same shape (see WARMUP).
 */
const N = Number(process.env.BENCH_PAYMENTS_N ?? 600);
const CONCURRENCY = Number(process.env.BENCH_PAYMENTS_CONCURRENCY ?? 8);
/**
 * Completions per side before the measured rounds, in interleaved chunks of N: V8 tiers the
 * JavaScript up and PGlite's WebAssembly from its baseline compiler to the optimising one on
 * background threads (process CPU too), which takes about a thousand completions here. The
 * measured rounds are the steady state a long-running server pays; the warm-up rounds' own CPU
 * is printed beside them.
 */
const WARMUP = Number(process.env.BENCH_PAYMENTS_WARMUP ?? 1200);
/** Interleaved rounds per side: load drift on a shared VM hits every side alike. */
const ROUNDS = Number(process.env.BENCH_PAYMENTS_ROUNDS ?? 5);

const sign = signHeaders;

type FacilitatorSigner = ConstructorParameters<typeof ExactEvmScheme>[0];

/**
 * A facilitator signer with no chain behind it: the token is a contract, payers are EOAs (no
 * code), the transfer simulation passes (the ledger statement enforces balance and nonce). The
 * scheme itself hashes the typed data and recovers the EOA signer with viem (@x402/evm 2.27 calls
 * `verifyTypedData` only for other signers), which is what this reference pays for.
 */
function offChainSigner(asset: string): FacilitatorSigner {
  const unused = () => Promise.reject(new Error('no chain in the bench'));
  return {
    getAddresses: () => [getAddress(`0x${'fac1'.padEnd(40, '0')}`)],
    getCode: ({ address }) =>
      Promise.resolve(address.toLowerCase() === asset.toLowerCase() ? '0x6080' : '0x'),
    readContract: () => Promise.resolve(undefined),
    verifyTypedData: (args) => verifyTypedData(args as Parameters<typeof verifyTypedData>[0]),
    writeContract: unused,
    sendTransaction: unused,
    waitForTransactionReceipt: unused,
  };
}

type Verify = (
  payload: PaymentPayload,
  accepted: PaymentRequirements,
) => Promise<{ isValid: boolean; invalidReason?: string }>;

/** @x402/evm's own `exact` facilitator verification (what the reference pays for). */
function officialVerify(accepted: PaymentRequirements): Verify {
  const scheme = new ExactEvmScheme(offChainSigner(accepted.asset));
  return (payload, req) => scheme.verify(payload, req);
}

/**
 * The least a correct verification does, with the fastest code we know: the EIP-712 digest and
 * signer recovery of ./src/x402/recovery.ts (native Keccak and the native secp256k1 binding) and
 * the signed recipient, value and window. With our header decoder, what the MINIMAL route pays
 * for: the reference's shape at the floor's speed, a lower bound for any paid route that settles
 * on this ledger (it shares our fastest modules on purpose; the reference shares none).
 */
const nativeVerify: Verify = (payload, accepted) => {
  const proof = payload.payload as { signature: string; authorization: Record<string, string> };
  const a = proof.authorization;
  const now = Math.floor(Date.now() / 1000);
  const signer = signerOfProof(
    {
      name: String(accepted.extra?.name),
      version: String(accepted.extra?.version),
      chainId: Number(accepted.network.split(':')[1]),
      verifyingContract: accepted.asset,
    },
    proof,
  );
  const isValid =
    signer === a.from!.toLowerCase() &&
    a.to!.toLowerCase() === accepted.payTo.toLowerCase() &&
    a.value === accepted.amount &&
    Number(a.validBefore) > now &&
    Number(a.validAfter) <= now;
  return Promise.resolve(isValid ? { isValid } : { isValid, invalidReason: 'invalid_signature' });
};

/** The independent reference: @x402/core decoding, @x402/evm verification, the ledger statement. */
function referenceServer(
  sql: Sql,
  startBalanceMicro: number,
  accepted: PaymentRequirements,
  verify: Verify = officialVerify(accepted),
  decode: (header: string) => unknown = decodePaymentSignatureHeader,
) {
  const json = (res: ServerResponse, status: number, body: unknown, headers = {}) =>
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify(body));
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const header = req.headers['payment-signature'];
    if (typeof header !== 'string') return json(res, 402, { accepts: [accepted] });
    const payload = decode(header) as PaymentPayload;
    const a = payload.accepted;
    if (
      a.scheme !== accepted.scheme ||
      a.network !== accepted.network ||
      a.asset !== accepted.asset ||
      a.payTo !== accepted.payTo ||
      a.amount !== accepted.amount
    )
      return json(res, 402, { error: 'requirements not issued' });
    const verified = await verify(payload, accepted);
    if (!verified.isValid) return json(res, 402, { error: verified.invalidReason });
    const auth = (payload.payload as { authorization: { nonce: string; from: string } })
      .authorization;
    const transaction = `0x${randomBytes(32).toString('hex')}`;
    const moved = await ledgerTransfer(sql, startBalanceMicro, {
      network: accepted.network,
      asset: accepted.asset,
      payer: auth.from.toLowerCase(),
      payTo: accepted.payTo.toLowerCase(),
      value: Number(accepted.amount),
      nonce: auth.nonce.toLowerCase(),
      transaction,
      status: 'confirmed',
    });
    if (!moved) return json(res, 402, { error: 'nonce already used' });
    const settled = {
      success: true,
      transaction,
      network: accepted.network,
      payer: auth.from,
      amount: accepted.amount,
    };
    return json(
      res,
      200,
      { ok: true },
      { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(settled) },
    );
  };
  return createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      handle(req, res).catch((e: unknown) => json(res, 500, { error: String(e) }));
    });
  });
}

/**
 * The floor of one paid completion, costed like the servers: process CPU for one native
 * secp256k1 recovery (of a real payment's EIP-712 digest) plus one minimal insert of its nonce,
 * `CONCURRENCY` inserts in flight as the servers have.
 */
async function floorRound(
  sql: Sql,
  digests: Array<{ digest: Uint8Array; signature: Uint8Array; recid: number }>,
): Promise<Round & { recoverMs: number; insertMs: number }> {
  let cpu = process.cpuUsage();
  for (const d of digests) secp256k1.ecdsaRecover(d.signature, d.recid, d.digest, false);
  const recoverMs = cpuMs(process.cpuUsage(cpu)) / digests.length;
  // the keys are made before the clock starts: the floor is the insert, not our random numbers
  const keys = digests.map(() => [
    randomBytes(20).toString('hex'),
    randomBytes(32).toString('hex'),
  ]);
  cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < digests.length) {
        const [payer, nonce] = keys[next++]!;
        await sql`insert into bench_floor (payer, nonce) values (${payer!}, ${nonce!})`;
      }
    }),
  );
  const insertMs = cpuMs(process.cpuUsage(cpu)) / digests.length;
  return {
    perSecond: digests.length / ((performance.now() - started) / 1000),
    cpuMs: recoverMs + insertMs,
    recoverMs,
    insertMs,
    failures: 0,
  };
}

export function digestsOf(headers: string[]) {
  return headers.map((h) => digestOf(decodePaymentSignatureHeader(h)));
}

/** The EIP-712 typed data a payment's payer signed, and the signature. */
function typedDataOf(p: PaymentPayload) {
  const { signature, authorization: a } = p.payload as {
    signature: Hex;
    authorization: Record<string, string>;
  };
  const typedData = {
    domain: {
      name: String(p.accepted.extra?.name),
      version: String(p.accepted.extra?.version),
      chainId: Number(p.accepted.network.split(':')[1]),
      verifyingContract: getAddress(p.accepted.asset),
    },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization' as const,
    message: {
      from: getAddress(a.from!),
      to: getAddress(a.to!),
      value: BigInt(a.value!),
      validAfter: BigInt(a.validAfter!),
      validBefore: BigInt(a.validBefore!),
      nonce: a.nonce as Hex,
    },
  };
  return { typedData, signature };
}

/** The EIP-712 digest a payment's payer signed, and its signature split for recovery. */
function digestOf(p: PaymentPayload) {
  const { typedData, signature } = typedDataOf(p);
  const digest = hashTypedData(typedData);
  const sig = Buffer.from(signature.slice(2), 'hex');
  const v = sig[64]!;
  return {
    digest: Buffer.from(digest.slice(2), 'hex'),
    signature: sig.subarray(0, 64),
    recid: v >= 27 ? v - 27 : v,
  };
}

/** viem's recovery alone (what a pure-JS verifier pays), for the record. */
async function viemRecoveryUs(headers: string[]): Promise<number> {
  const started = performance.now();
  for (const h of headers) {
    const { typedData, signature } = typedDataOf(decodePaymentSignatureHeader(h));
    await recoverTypedDataAddress({ ...typedData, signature });
  }
  return ((performance.now() - started) / headers.length) * 1000;
}

/**
 * One of our servers (./paid-server.ts) with the floor's table in its database: in memory, or with
 * BENCH_PAYMENTS_ON_DISK=1 on disk, where BENCH_PAYMENTS_FSYNC=false turns off durable commits
 * (EMBEDDED_DB_FSYNC) to price them.
 */
async function ourServer(dbThread: boolean, startBalanceUsdc: number) {
  const server = await paidServer({
    dbThread,
    startBalanceUsdc,
    onDisk: process.env.BENCH_PAYMENTS_ON_DISK === '1',
    ...(process.env.BENCH_PAYMENTS_FSYNC && {
      env: { EMBEDDED_DB_FSYNC: process.env.BENCH_PAYMENTS_FSYNC },
    }),
    ddl: 'create table bench_floor (payer text not null, nonce text not null, primary key (payer, nonce))',
  });
  return server;
}

export async function benchPayments(): Promise<Record<string, unknown>> {
  const startBalance = 1_000_000;
  // The served default (EMBEDDED_DB_THREAD=false) runs the embedded database on the main thread;
  // the same server with the database on a worker thread runs interleaved beside it
  // (BENCH_PAYMENTS_DB_THREAD=true swaps the two; BENCH_PAYMENTS_COMPARE_THREAD=0: no second one).
  const primaryOnThread = process.env.BENCH_PAYMENTS_DB_THREAD === 'true';
  const primary = await ourServer(primaryOnThread, startBalance);
  const other =
    process.env.BENCH_PAYMENTS_COMPARE_THREAD === '0'
      ? undefined
      : await ourServer(!primaryOnThread, startBalance);
  const { sql, item, url: acquireUrl, required } = primary;
  const driver = await Driver.start(CONCURRENCY);

  try {
    const requirement = required.accepts[0]!;
    const refServer = referenceServer(sql, startBalance * 1e6, requirement);
    await new Promise<void>((r) => refServer.listen(0, '127.0.0.1', r));
    const refUrl = `http://127.0.0.1:${(refServer.address() as AddressInfo).port}/paid`;
    const minServer = referenceServer(
      sql,
      startBalance * 1e6,
      requirement,
      nativeVerify,
      decodeFast,
    );
    await new Promise<void>((r) => minServer.listen(0, '127.0.0.1', r));
    const minUrl = `http://127.0.0.1:${(minServer.address() as AddressInfo).port}/paid`;
    const otherRequired = other?.required;

    const wallets = Array.from({ length: 40 }, () => newWallet());
    const body = JSON.stringify({ policy_accepted: true, license_accepted: true });
    const warmChunks = Math.max(1, Math.ceil(WARMUP / N));
    console.log(`signing ${(other ? 5 : 4) * (ROUNDS + warmChunks) * N} payments (not timed)…`);
    const batches: Array<{
      ours: string[];
      ref: string[];
      min: string[];
      floor: ReturnType<typeof digestsOf>;
      other: string[];
    }> = [];
    const signOther = (n: number) =>
      otherRequired ? sign(wallets, otherRequired, otherRequired.accepts[0]!, n) : [];
    for (let i = 0; i < ROUNDS + warmChunks; i++) {
      batches.push({
        ours: await sign(wallets, required, requirement, N),
        ref: await sign(wallets, required, requirement, N),
        min: await sign(wallets, required, requirement, N),
        floor: digestsOf(await sign(wallets, required, requirement, N)),
        other: await signOther(N),
      });
    }
    // warm-up: the same interleaved rounds, kept apart (their CPU is shown, not in the ratios)
    const cold = {
      ours: [] as Round[],
      ref: [] as Round[],
      min: [] as Round[],
      floor: [] as Round[],
    };
    for (const batch of batches.splice(0, warmChunks)) {
      cold.ours.push(await driver.round(acquireUrl, batch.ours, body));
      cold.ref.push(await driver.round(refUrl, batch.ref));
      cold.min.push(await driver.round(minUrl, batch.min));
      cold.floor.push(await floorRound(sql, batch.floor));
      if (other) {
        await driver.round(other.url, batch.other, body);
        await floorRound(other.sql, batch.floor);
      }
    }
    // interleaved rounds (A B C A B C ...), so drift of the machine hits every side alike
    const o: Round[] = [];
    const r: Round[] = [];
    const m: Round[] = [];
    const f: Array<Awaited<ReturnType<typeof floorRound>>> = [];
    const o2: Round[] = [];
    const f2: Array<Awaited<ReturnType<typeof floorRound>>> = [];
    for (const batch of batches) {
      o.push(await driver.round(acquireUrl, batch.ours, body));
      r.push(await driver.round(refUrl, batch.ref));
      m.push(await driver.round(minUrl, batch.min));
      f.push(await floorRound(sql, batch.floor));
      if (other) {
        o2.push(await driver.round(other.url, batch.other, body));
        f2.push(await floorRound(other.sql, batch.floor));
      }
    }
    refServer.close();
    minServer.close();

    const ratioToReference = median(o.map((x, i) => x.perSecond / r[i]!.perSecond));
    // The floor's insert costs least with the database on the main thread (no thread hop): the
    // ratio to the floor divides by that one whichever placement serves, so a hop never flatters it.
    const floor = primaryOnThread && other ? f2 : f;
    const ratioToFloor = median(o.map((x, i) => x.cpuMs / floor[i]!.cpuMs));
    const refToFloor = median(r.map((x, i) => x.cpuMs / floor[i]!.cpuMs));
    const ratioToSameDbFloor = median(o.map((x, i) => x.cpuMs / f[i]!.cpuMs));
    const minimalToFloor = median(m.map((x, i) => x.cpuMs / floor[i]!.cpuMs));
    const oursToMinimal = median(o.map((x, i) => x.cpuMs / m[i]!.cpuMs));
    const [{ orders }] = (await sql<{ orders: number }[]>`
      select count(*)::int as orders from orders where item_id = ${item.itemId}`) as unknown as [
      { orders: number },
    ];
    const viemUs = await viemRecoveryUs(batches[0]!.ours.slice(0, 100));
    const ms = (x: number) => Number(x.toFixed(3));
    const result = {
      completions: N * ROUNDS,
      warm_up: {
        completions_per_side: warmChunks * N,
        cpu_ms_ours: cold.ours.map((x) => ms(x.cpuMs)),
        cpu_ms_reference: cold.ref.map((x) => ms(x.cpuMs)),
        cpu_ms_minimal: cold.min.map((x) => ms(x.cpuMs)),
        cpu_ms_floor: cold.floor.map((x) => ms(x.cpuMs)),
      },
      rounds: ROUNDS,
      concurrency: CONCURRENCY,
      ours_per_second: Math.round(median(o.map((x) => x.perSecond))),
      reference_per_second: Math.round(median(r.map((x) => x.perSecond))),
      ratio_ours_to_reference: Number(ratioToReference.toFixed(2)),
      reference_goal: '>= 1.5',
      cpu_ms_per_completion: {
        ours: ms(median(o.map((x) => x.cpuMs))),
        reference: ms(median(r.map((x) => x.cpuMs))),
        minimal_route: ms(median(m.map((x) => x.cpuMs))),
        floor: ms(median(floor.map((x) => x.cpuMs))),
        floor_recovery: ms(median(floor.map((x) => x.recoverMs))),
        floor_insert: ms(median(floor.map((x) => x.insertMs))),
        floor_insert_same_database: ms(median(f.map((x) => x.insertMs))),
      },
      ratio_ours_to_floor: Number(ratioToFloor.toFixed(2)),
      ratio_reference_to_floor: Number(refToFloor.toFixed(2)),
      floor_database_on_main_thread: floor === f ? !primaryOnThread : true,
      ratio_ours_to_same_database_floor: Number(ratioToSameDbFloor.toFixed(2)),
      floor_goal: '<= 5',
      ratio_minimal_route_to_floor: Number(minimalToFloor.toFixed(2)),
      ratio_ours_to_minimal_route: Number(oursToMinimal.toFixed(2)),
      failures: {
        ours: o.reduce((n, x) => n + x.failures, 0),
        reference: r.reduce((n, x) => n + x.failures, 0),
        minimal_route: m.reduce((n, x) => n + x.failures, 0),
      },
      orders_written: orders,
      viem_recovery_us: Math.round(viemUs),
      database_on_worker_thread: primaryOnThread,
      other_placement: other && {
        database_on_worker_thread: !primaryOnThread,
        ours_per_second: Math.round(median(o2.map((x) => x.perSecond))),
        ratio_ours_to_reference: Number(
          median(o2.map((x, i) => x.perSecond / r[i]!.perSecond)).toFixed(2),
        ),
        cpu_ms_per_completion: ms(median(o2.map((x) => x.cpuMs))),
        floor_cpu_ms: ms(median(f2.map((x) => x.cpuMs))),
        ratio_ours_to_floor: Number(median(o2.map((x, i) => x.cpuMs / f2[i]!.cpuMs)).toFixed(2)),
        ratio_ours_to_primary_floor: Number(
          median(o2.map((x, i) => x.cpuMs / f[i]!.cpuMs)).toFixed(2),
        ),
        failures: o2.reduce((n, x) => n + x.failures, 0),
      },
      on_chain: {} as Record<string, unknown>,
    };
    // The same purchase settled on a local EVM by the in-process chain facilitator, same run.
    const { benchPaymentsOnChain } = await import('./payments-chain.js');
    const onChain = await benchPaymentsOnChain({
      ledgerPerSecond: result.ours_per_second,
      refPerSecond: result.reference_per_second,
      round: (url, headers, body) => driver.round(url, headers, body),
      sign,
    });
    const rounds = (xs: Round[]) => xs.map((x) => Math.round(x.perSecond)).join(', ');
    const cpus = (xs: Round[]) => xs.map((x) => x.cpuMs.toFixed(2)).join(', ');
    console.log(
      [
        `paid completions (${N} x ${ROUNDS} interleaved rounds, concurrency ${CONCURRENCY}, load from a child process):`,
        `  warm-up    ${result.warm_up.completions_per_side} per side first, not in the ratios (CPU ms ours ${cpus(cold.ours)}; reference ${cpus(cold.ref)}; minimal ${cpus(cold.min)}; floor ${cpus(cold.floor)})`,
        `  ours       ${result.ours_per_second}/s  (rounds ${rounds(o)}; CPU ms ${cpus(o)}; order + audit row per purchase)`,
        `  reference  ${result.reference_per_second}/s  (rounds ${rounds(r)}; CPU ms ${cpus(r)}; @x402/evm verify + ledger statement)`,
        `  floor      CPU ms ${cpus(floor)}  (native recovery ${result.cpu_ms_per_completion.floor_recovery} + one insert ${result.cpu_ms_per_completion.floor_insert}, database on ${result.floor_database_on_main_thread ? 'the main thread' : 'its worker thread'}${floor === f ? '' : `; the same insert on the worker thread ${result.cpu_ms_per_completion.floor_insert_same_database}`})`,
        `  minimal    ${Math.round(median(m.map((x) => x.perSecond)))}/s  (rounds ${rounds(m)}; CPU ms ${cpus(m)}; the reference with our native decode and recovery, then the ledger statement)`,
        `  ours / reference throughput ${result.ratio_ours_to_reference}  (goal >= 1.5)`,
        `  ours CPU / floor CPU        ${result.ratio_ours_to_floor}  (goal <= 5; reference ${result.ratio_reference_to_floor}; against the floor on the same database ${result.ratio_ours_to_same_database_floor})`,
        `  minimal route CPU / floor  ${result.ratio_minimal_route_to_floor}; ours / minimal route ${result.ratio_ours_to_minimal_route}  (what settling on this ledger costs before any order, audit row or payment record)`,
        `  failures   ours ${result.failures.ours}, reference ${result.failures.reference}, minimal ${result.failures.minimal_route}; orders written ${orders}`,
        `  viem recovery alone ${result.viem_recovery_us} µs each`,
        `  (the database on ${result.database_on_worker_thread ? 'its own worker thread' : 'the main thread'})`,
        ...(other
          ? [
              `  ours, database on ${result.database_on_worker_thread ? 'the main thread' : 'a worker thread'}, same rounds: ${result.other_placement!.ours_per_second}/s (rounds ${rounds(o2)}; CPU ms ${cpus(o2)}), ` +
                `/ reference ${result.other_placement!.ratio_ours_to_reference}; CPU / its own floor (${cpus(f2)}) ${result.other_placement!.ratio_ours_to_floor}, ` +
                `/ the floor above ${result.other_placement!.ratio_ours_to_primary_floor}; failures ${result.other_placement!.failures}`,
            ]
          : []),
      ].join('\n'),
    );
    result.on_chain = onChain;
    return result;
  } finally {
    driver.stop();
    await primary.close();
    await other?.close();
  }
}
