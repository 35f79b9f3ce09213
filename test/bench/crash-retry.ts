/**
 * Time to 200 of a buyer's retry after a crash between settlement and order (docs/operating.md,
 * "A replica killed mid-purchase"; issue 25): the service from source in a process of its own
 * (test/helpers/service-child.ts, for its pause point) takes a purchase from the official client
 * (`@x402/fetch`, with a payment identifier), is killed with SIGKILL after the local facilitator
 * settled it and before anything of the outcome is written, and the built entry (`npm start`) is
 * started on the same data directory with the default settings. The buyer then sends the same
 * signed request again and again (at most one in flight) until one answers 200.
 *
 *   npm run build && npx tsx test/bench/crash-retry.ts
 *
 * Prints one JSON line: the start of the built entry (kill to healthy), and from healthy the time
 * to the 200 and the answers before it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import {
  appendPaymentIdentifierToExtensions,
  generatePaymentId,
} from '@x402/extensions/payment-identifier';
import { wrapFetchWithPayment } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const dataDir = await mkdtemp(path.join(tmpdir(), 'crash-retry-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), PUBLIC_BASE_URL: base };
let child: ChildProcess | undefined;
let built: ChildProcess | undefined;
try {
  child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/service-child.ts'], {
    env: { ...env, LOG_LEVEL: 'warn', SEED_ITEM: '1' },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const itemId = await new Promise<string>((resolve, reject) => {
    let out = '';
    child!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{"ready"'));
      if (line) resolve((JSON.parse(line) as { itemId: string }).itemId);
    });
    child!.once('exit', (code) => reject(new Error(`service exited ${code}`)));
  });
  const paused = new Promise<void>((resolve) =>
    child!.on('message', (m: { paused?: string }) => m.paused && resolve()),
  );
  child.send({ arm: 'after-settle' });
  await sleep(200);

  // the official client, a fresh id in the payment; the paid request's headers are kept
  const account = privateKeyToAccount(generatePrivateKey());
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: account });
  client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    paymentRequired.extensions ??= {};
    appendPaymentIdentifierToExtensions(paymentRequired.extensions, generatePaymentId());
  });
  let signature: string | undefined;
  const recording = (input: Request | string | URL, init?: RequestInit) => {
    const headers = input instanceof Request ? input.headers : new Headers(init?.headers);
    signature ??= headers.get('payment-signature') ?? undefined;
    return fetch(input, init);
  };
  const url = `${base}/api/v1/items/${itemId}/acquire`;
  const body = JSON.stringify({ chain: 'base', policy_accepted: true, license_accepted: true });
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
  const first = wrapFetchWithPayment(recording, client)(url, init).then(
    (r) => `answered ${r.status}`,
    () => 'cut off',
  );
  await paused;
  const exited = new Promise((r) => child!.once('exit', r));
  child.kill('SIGKILL');
  const killedAt = performance.now();
  await exited;
  if ((await first) !== 'cut off') throw new Error('the purchase was answered before the kill');

  // npm start's own command line (its `exec` makes the shell the service: a signal reaches it)
  const { scripts } = JSON.parse(await readFile('package.json', 'utf8')) as {
    scripts: { start: string };
  };
  built = spawn('sh', ['-c', scripts.start], {
    env: { ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    const ok = await fetch(`${base}/api/v1/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await sleep(20);
  }
  const healthyAt = performance.now();
  const answers: Array<{ status: number; error?: string; ms: number }> = [];
  for (;;) {
    const sent = performance.now();
    const res = await fetch(url, {
      ...init,
      headers: { ...init.headers, 'payment-signature': signature! },
    });
    const json = (await res.json()) as { error?: string; order_id?: string };
    answers.push({
      status: res.status,
      ...(json.error && { error: json.error }),
      ms: Math.round(performance.now() - sent),
    });
    if (res.status === 200) break;
    if (performance.now() - healthyAt > 120_000) throw new Error(JSON.stringify(answers));
  }
  const done = performance.now();
  process.stdout.write(
    `${JSON.stringify({
      startMs: Math.round(healthyAt - killedAt),
      to200FromHealthyMs: Math.round(done - healthyAt),
      to200FromKillMs: Math.round(done - killedAt),
      answers,
    })}\n`,
  );
} finally {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (built) {
    const exited = new Promise((r) => built!.once('exit', r));
    built.kill('SIGTERM');
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true });
}
