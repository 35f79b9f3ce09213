import type { PaymentPayload } from '@x402/core/types';

/**
 * The x402 v2 `PaymentPayload` as @x402/core's `PaymentPayloadV2Schema` accepts it, field for
 * field, checked by hand: every paid request parses one, and zod (4 here, 3 in @x402/core) spent
 * its largest part in the records' and the nullish-transform pipes' machinery. The answer is the
 * one the zod 4 schema gave: unknown keys dropped, a `null` optional text, list or resource read
 * as `undefined` (the key kept), `extra` and `extensions` copied as records (own enumerable string
 * keys, `__proto__` skipped), the rest as sent. Only version 2 is accepted here (the guard refuses
 * 1 anyway). The unit tests compare it with @x402/core's schema and with that zod 4 schema on
 * valid, broken and hostile payloads (test/unit/x402-payload-schema.test.ts).
 */
type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** As zod's `isPlainObject` (what `z.record` accepts). */
function isPlainObject(v: unknown): v is Obj {
  if (!isObject(v)) return false;
  const ctor = (v as { constructor?: unknown }).constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const proto = (ctor as { prototype?: unknown }).prototype;
  return isObject(proto) && Object.prototype.hasOwnProperty.call(proto, 'isPrototypeOf');
}

/** `z.record(z.string(), z.unknown())`: a copy of its own enumerable string keys. */
function record(v: unknown): Obj | undefined {
  if (!isPlainObject(v)) return undefined;
  for (const s of Object.getOwnPropertySymbols(v)) {
    if (Object.prototype.propertyIsEnumerable.call(v, s)) return undefined;
  }
  const out: Obj = {};
  for (const key of Object.keys(v)) if (key !== '__proto__') out[key] = v[key];
  return out;
}

const FAIL = Symbol('fail');
type Checked<T> = T | typeof FAIL;

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.length >= 1;
const printable = (v: unknown): v is string =>
  typeof v === 'string' && v.length >= 1 && v.length <= 32 && /^[\x20-\x7e]+$/.test(v);

/**
 * An optional key read as zod's `nullish().transform(v => v ?? undefined)` does, then `set`:
 * absent stays absent, present and null or undefined becomes undefined.
 */
function optional(
  input: Obj,
  out: Obj,
  key: string,
  check: (v: unknown) => Checked<unknown>,
): boolean {
  const present = key in input;
  const v = input[key];
  if (v === null || v === undefined) {
    if (present) out[key] = undefined;
    return true;
  }
  const r = check(v);
  if (r === FAIL) return false;
  out[key] = r;
  return true;
}

/** `record.nullish()`: absent stays absent, null stays null, undefined kept as a present key. */
function nullishRecord(input: Obj, out: Obj, key: string): boolean {
  const present = key in input;
  const v = input[key];
  if (v === null || v === undefined) {
    if (present) out[key] = v;
    return true;
  }
  const r = record(v);
  if (!r) return false;
  out[key] = r;
  return true;
}

const text = (v: unknown): Checked<unknown> => (typeof v === 'string' ? v : FAIL);

function resourceInfo(v: unknown): Checked<Obj> {
  if (!isObject(v) || !nonEmpty(v.url)) return FAIL;
  const out: Obj = { url: v.url };
  const ok =
    optional(v, out, 'description', text) &&
    optional(v, out, 'mimeType', text) &&
    optional(v, out, 'serviceName', (s) => (printable(s) ? s : FAIL)) &&
    optional(v, out, 'tags', (t) =>
      Array.isArray(t) && t.length <= 5 && t.every(printable) ? t.slice() : FAIL,
    ) &&
    optional(v, out, 'iconUrl', (s) => (typeof s === 'string' && s.length <= 2048 ? s : FAIL));
  return ok ? out : FAIL;
}

function requirements(v: unknown): Checked<Obj> {
  if (!isObject(v)) return FAIL;
  const { scheme, network, amount, asset, payTo, maxTimeoutSeconds } = v;
  if (!nonEmpty(scheme)) return FAIL;
  if (typeof network !== 'string' || network.length < 3 || !network.includes(':')) return FAIL;
  if (!nonEmpty(amount) || !nonEmpty(asset) || !nonEmpty(payTo)) return FAIL;
  if (
    typeof maxTimeoutSeconds !== 'number' ||
    !Number.isFinite(maxTimeoutSeconds) ||
    !(maxTimeoutSeconds > 0)
  ) {
    return FAIL;
  }
  const out: Obj = { scheme, network, amount, asset, payTo, maxTimeoutSeconds };
  return nullishRecord(v, out, 'extra') ? out : FAIL;
}

/** The decoded `PAYMENT-SIGNATURE` value as an x402 v2 payload, or undefined when it is not one. */
export function parsePaymentPayloadV2(value: unknown): PaymentPayload | undefined {
  if (!isObject(value) || value.x402Version !== 2) return undefined;
  const out: Obj = { x402Version: 2 };
  if (!optional(value, out, 'resource', resourceInfo)) return undefined;
  const accepted = requirements(value.accepted);
  if (accepted === FAIL) return undefined;
  out.accepted = accepted;
  const payload = record(value.payload);
  if (!payload) return undefined;
  out.payload = payload;
  if (!nullishRecord(value, out, 'extensions')) return undefined;
  return out as unknown as PaymentPayload;
}
