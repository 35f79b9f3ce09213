/**
 * The JavaScript a paid completion spends on its statement before the database sees it, in
 * isolation: `node --import tsx test/bench/purchase-assembly.ts` (ASSEMBLY_N 20000 per variant per
 * round, ASSEMBLY_ROUNDS 5). A first-time and a repeat purchase go through the app in process; their
 * completions' inputs are kept and assembled again in a loop, two ways, with postgres.js's own
 * `stringify` and `handleValue` for what postgres.js does on sending:
 *   tagged    the fragments as postgres.js `Query` objects, the text built from them (as before)
 *   prepared  the fragments recorded, the text found by shape (src/db/statement.ts), the values
 *             typed by postgres.js as `sql.unsafe` does
 *   merged    the same with its equal values bound once (as served since stop 43)
 * Both end with postgres.js's statement signature (types + text), which it builds either way.
 * Beside them, the payment header's payload (an official client's, decoded) checked by the zod 4
 * schema that src/x402/payload-schema.ts replaced (kept here to price it) and by that hand check,
 * and its exact EVM payload by the zod schema and the hand check of src/x402/eip3009.ts.
 * Prints µs per statement (CPU of the loop, interleaved rounds, median) and the texts' equality.
 */
import type { Sql, SqlFragment } from '../../src/db/index.js';
import { compile, describeTypes, recording } from '../../src/db/statement.js';
import { completion, type Completing } from '../../src/domain/payments/completion.js';
import type { Fulfilment } from '../../src/domain/payments/fulfilment.js';
// postgres.js's own builders (not exported by its package entry; the same module instances)
// @ts-expect-error untyped internals
import { handleValue, stringify } from '../../node_modules/postgres/src/types.js';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { parseExactEvmPayload } from '../../src/x402/eip3009.js';
import { parsePaymentPayloadV2 } from '../../src/x402/payload-schema.js';
import { newWallet, signHeaders } from '../helpers/wallets.js';
import { ZodExactEvmPayload } from '../helpers/zod-exact-evm-payload.js';
import { ZodPaymentPayloadV2 } from '../helpers/zod-payment-payload.js';
import { Driver, median } from './load.js';
import { paidServer } from './paid-server.js';

const N = Number(process.env.ASSEMBLY_N ?? 20_000);
const ROUNDS = Number(process.env.ASSEMBLY_ROUNDS ?? 5);

const server = await paidServer();
const { url, required, sql, runtime } = server;
const store = runtime.deps.payments.store;
const kept: { how: Completing; fulfil: Fulfilment }[] = [];
const original = store.completion.bind(store);
store.completion = (how, fulfil) => {
  kept.push({ how, fulfil });
  return original(how, fulfil);
};
// a first-time buyer, then another buyer twice (its second purchase is a repeat buyer's)
const driver = await Driver.start(1);
const body = JSON.stringify({ policy_accepted: true, license_accepted: true });
const other = [newWallet()];
const purchases: [typeof other, number][] = [
  [[newWallet()], 1],
  [other, 1],
  [other, 2],
];
for (const [buyer, i] of purchases)
  await driver.round(url, await signHeaders(buyer, required, required.accepts[0]!, i), body);
driver.stop();
const [first, , repeat] = kept;
if (!first || !repeat) throw new Error('the purchases were not seen');

const options = (sql as unknown as { options: object }).options;
type Build = (q: unknown) => string;
/** What postgres.js does with a tagged statement on sending (connection.js `build`). */
const sendTagged: Build = (q) => {
  const parameters: unknown[] = [];
  const types: unknown[] = [];
  const f = q as { strings: string[]; args: unknown[] };
  const string = stringify(f, f.strings[0], f.args[0], parameters, types, options) as string;
  return types + string;
};
/** The same for `sql.unsafe(text, values)`: its values typed one by one. */
const sendPrepared = (text: string, values: unknown[]) => {
  const parameters: unknown[] = [];
  const types: unknown[] = [];
  for (const v of values) handleValue(v, parameters, types, options);
  return types + text;
};

const recorded = recording(sql);
// the first buyer's purchase committed, so it is remembered: forgotten once, it stays first-time
completion(recorded, first.how, first.fulfil);
/** A repeat buyer's fulfilment is told the purchase committed (so the next one is a repeat too). */
const variants = (k: { how: Completing; fulfil: Fulfilment }, again: boolean) => ({
  tagged: () => {
    const c = completion(sql as Sql, k.how, k.fulfil);
    if (again) c.committed?.();
    return sendTagged(c.statement);
  },
  prepared: () => {
    const c = completion(recorded, k.how, k.fulfil);
    if (again) c.committed?.();
    const { text, values } = compile(sql, c.statement as SqlFragment);
    return sendPrepared(text, values);
  },
  // as served since stop 43: its equal values bound once
  merged: () => {
    const c = completion(recorded, k.how, k.fulfil);
    if (again) c.committed?.();
    const { text, values } = compile(sql, c.statement as SqlFragment, true);
    return sendPrepared(text, values);
  },
});

// a first-time buyer stays one: its kept payer is never told its purchase committed
const kinds = { 'first-time': variants(first, false), repeat: variants(repeat, true) };
for (const [kind, v] of Object.entries(kinds)) {
  const a = v.tagged();
  const b = v.prepared();
  if (a !== b) throw new Error(`${kind}: the two ways send different statements`);
  // the places' types read once per shape, as `prepared` does before its first merged run
  const k = kind === 'repeat' ? repeat : first;
  const c = completion(recorded, k.how, k.fulfil);
  if (kind === 'repeat') c.committed?.();
  if (!(await describeTypes(sql, c.statement as SqlFragment)))
    throw new Error(`${kind}: the statement cannot be merged`);
  const values = (merge: boolean) => compile(sql, c.statement as SqlFragment, merge).values.length;
  console.log(
    `${kind}: the same signature both ways (${b.length} characters; merged ${v.merged().length}); ` +
      `${values(false)} values, ${values(true)} merged`,
  );
}

// the zod 4 schema the hand check replaced (test/unit/x402-payload-schema.test.ts compares them)
const ZodPayload = ZodPaymentPayloadV2;
const [header] = await signHeaders([newWallet()], required, required.accepts[0]!, 1);
const decoded = decodePaymentSignatureHeader(header!);
if (JSON.stringify(ZodPayload.parse(decoded)) !== JSON.stringify(parsePaymentPayloadV2(decoded)))
  throw new Error('the payload checks differ');
// the same for its exact EVM payload (src/x402/eip3009.ts; test/unit/x402-exact-payload.test.ts)
const exact = decoded.payload;
if (
  JSON.stringify(ZodExactEvmPayload.parse(exact), (_, v: unknown) =>
    typeof v === 'bigint' ? `${v}` : v,
  ) !==
  JSON.stringify(parseExactEvmPayload(exact), (_, v: unknown) =>
    typeof v === 'bigint' ? `${v}` : v,
  )
)
  throw new Error('the exact payload checks differ');
const payloadChecks = {
  'payload zod': () => ZodPayload.safeParse(decoded),
  'payload by hand': () => parsePaymentPayloadV2(decoded),
  'exact zod': () => ZodExactEvmPayload.safeParse(exact),
  'exact by hand': () => parseExactEvmPayload(exact),
};

const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const results: Record<string, number[]> = {};
for (let round = 0; round <= ROUNDS; round++) {
  for (const [kind, v] of [...Object.entries(kinds), ['', payloadChecks] as const]) {
    for (const [name, run] of Object.entries(v)) {
      const started = cpu();
      for (let i = 0; i < N; i++) run();
      const us = (cpu() - started) / N;
      if (round > 0) (results[`${kind} ${name}`.trim()] ??= []).push(us);
    }
  }
}
for (const [name, xs] of Object.entries(results)) {
  console.log(
    `${name.padEnd(22)} ${median(xs).toFixed(2)} µs CPU per statement (rounds ${xs.map((x) => x.toFixed(1)).join(' ')})`,
  );
}
await server.close();
