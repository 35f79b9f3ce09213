import { describe, expect, it } from 'vitest';
import { parseExactEvmPayload, verifiedExactPayload } from '../../src/x402/eip3009.js';
import { ZodExactEvmPayload } from '../helpers/zod-exact-evm-payload.js';

const zodAnswer = (v: unknown) => {
  const r = ZodExactEvmPayload.safeParse(v);
  return r.success ? r.data : undefined;
};

const hex = (n: number, c = 'a') => c.repeat(n);
const valid = {
  signature: `0x${hex(130, 'B')}`,
  authorization: {
    from: '0x' + 'Ab'.repeat(20),
    to: '0xd8da6bf26964af9d7eed9e03e53415d37aa96045',
    value: '1000000',
    validAfter: '0',
    validBefore: '1790000000',
    nonce: `0x${hex(64, 'F')}`,
  },
};

type Payload = { signature?: unknown; authorization: Record<string, unknown> } & Record<
  string,
  unknown
>;
const edit = (f: (p: Payload) => void): Payload => {
  const p = structuredClone(valid) as Payload;
  f(p);
  return p;
};

const sym = Symbol('s');
const uintValues: unknown[] = [
  '0',
  '007',
  '1'.repeat(78),
  '1'.repeat(79),
  '',
  ' 1',
  '1 ',
  '1\n',
  '-1',
  '1.0',
  '1e3',
  '0x10',
  '١٢',
  0,
  -0,
  7,
  1.5,
  -1,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 1,
  Infinity,
  NaN,
  10n,
  null,
  undefined,
  true,
  [],
  {},
  ['1'],
  new String('1'),
  new Number(1),
];
const addressValues: unknown[] = [
  valid.authorization.to,
  valid.authorization.to.toUpperCase().replace('0X', '0x'),
  '0xD8dA6BF26964aF9D7eEd9e03E53415D37aA96045',
  '0xD8DA6BF26964AF9D7EED9E03E53415D37AA96045',
  '0XD8DA6BF26964AF9D7EED9E03E53415D37AA96045',
  'd8da6bf26964af9d7eed9e03e53415d37aa96045',
  '0x' + '0'.repeat(40),
  '0x' + '0'.repeat(39),
  '0x' + '0'.repeat(41),
  '0x' + 'g'.repeat(40),
  valid.authorization.to + '\n',
  '',
  null,
  undefined,
  1,
  [valid.authorization.to],
  new String(valid.authorization.to),
];
const signatureValues: unknown[] = [
  valid.signature,
  hex(130),
  `0x${hex(128)}`,
  `0x${hex(131)}`,
  `0x${hex(132)}`,
  hex(131),
  `0x${hex(260)}`,
  `0X${hex(130)}`,
  `0x0x${hex(128)}`,
  `0x${hex(129)}g`,
  `0x${hex(130)}\n`,
  '0x',
  '',
  null,
  undefined,
  130,
  [valid.signature],
  new String(valid.signature),
];
const nonceValues: unknown[] = [
  valid.authorization.nonce,
  `0x${hex(64, '0')}`,
  `0x${hex(63)}`,
  `0x${hex(65)}`,
  hex(64),
  `0X${hex(64)}`,
  `0x${hex(64)}\n`,
  null,
  undefined,
  1,
  new String(valid.authorization.nonce),
];

const fieldCases: Array<[string, unknown]> = [];
for (const [i, v] of signatureValues.entries()) {
  fieldCases.push([`signature #${i}`, edit((p) => (p.signature = v))]);
}
for (const key of ['from', 'to'])
  for (const [i, v] of addressValues.entries()) {
    fieldCases.push([`${key} #${i}`, edit((p) => (p.authorization[key] = v))]);
  }
for (const key of ['value', 'validAfter', 'validBefore'])
  for (const [i, v] of uintValues.entries()) {
    fieldCases.push([`${key} #${i}`, edit((p) => (p.authorization[key] = v))]);
  }
for (const [i, v] of nonceValues.entries()) {
  fieldCases.push([`nonce #${i}`, edit((p) => (p.authorization.nonce = v))]);
}

/** Inputs only a hostile or broken client sends: odd shapes, prototypes and keys. */
const hostile: Array<[string, unknown]> = [
  ['valid', valid],
  [
    'unknown keys everywhere',
    edit((p) => Object.assign(p, { x: 1 }, { authorization: { ...p.authorization, y: 2 } })),
  ],
  ['no signature', edit((p) => delete p.signature)],
  ['no authorization', edit((p) => Object.assign(p, { authorization: undefined }))],
  ['null authorization', edit((p) => Object.assign(p, { authorization: null }))],
  ['array authorization', edit((p) => Object.assign(p, { authorization: [] }))],
  ['string authorization', edit((p) => Object.assign(p, { authorization: 'x' }))],
  ['no nonce', edit((p) => delete p.authorization.nonce)],
  [
    'everything numeric',
    edit((p) => Object.assign(p.authorization, { value: 1, validAfter: 0, validBefore: 2e9 })),
  ],
  [
    '__proto__ key at the top',
    JSON.parse(JSON.stringify(valid).replace('{', '{"__proto__":{"signature":1},')) as unknown,
  ],
  [
    '__proto__ key in authorization',
    JSON.parse(
      JSON.stringify(valid).replace(
        '"authorization":{',
        '"authorization":{"__proto__":{"nonce":1},',
      ),
    ) as unknown,
  ],
  [
    'inherited signature',
    Object.assign(Object.create({ signature: valid.signature }), {
      authorization: valid.authorization,
    }),
  ],
  [
    'inherited authorization fields',
    { signature: valid.signature, authorization: Object.create(valid.authorization) },
  ],
  [
    'null-prototype objects',
    Object.assign(Object.create(null), {
      signature: valid.signature,
      authorization: Object.assign(Object.create(null), valid.authorization),
    }),
  ],
  [
    'class instance',
    new (class P {
      signature = valid.signature;
      authorization = valid.authorization;
    })(),
  ],
  [
    'getters',
    {
      get signature() {
        return valid.signature;
      },
      authorization: {
        ...valid.authorization,
        get value() {
          return '5';
        },
      },
    },
  ],
  [
    'hidden key',
    Object.defineProperty({ authorization: valid.authorization }, 'signature', {
      value: valid.signature,
      enumerable: false,
    }),
  ],
  ['symbol keys', edit((p) => Object.assign(p, { [sym]: 1 }))],
  ['a date', new Date(0)],
  ['a map', new Map(Object.entries(valid))],
  ['a list', [valid]],
  ['a string', JSON.stringify(valid)],
  ['a number', 1],
  ['null', null],
  ['undefined', undefined],
];

/** Seeded random payloads mixing every field's values, so the checks are compared together. */
function mixed(count: number): Array<[string, unknown]> {
  let seed = 42;
  const pick = <T>(xs: T[]): T => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return xs[seed % xs.length]!;
  };
  const weighted = <T>(xs: T[], good: T): T => (pick([0, 1, 2, 3]) < 2 ? good : pick(xs));
  const out: Array<[string, unknown]> = [];
  for (let i = 0; i < count; i++) {
    const a = valid.authorization;
    out.push([
      `mixed #${i}`,
      {
        signature: weighted(signatureValues, valid.signature),
        authorization: {
          from: weighted(addressValues, a.from),
          to: weighted(addressValues, a.to),
          value: weighted(uintValues, a.value),
          validAfter: weighted(uintValues, a.validAfter),
          validBefore: weighted(uintValues, a.validBefore),
          nonce: weighted(nonceValues, a.nonce),
        },
      },
    ]);
  }
  return out;
}

const all = [...hostile, ...fieldCases, ...mixed(400)];

describe('the exact EVM payload check', () => {
  it.each(all)(
    '%s: the same object as the zod 4 schema built, key for key and in order',
    (_, input) => {
      const expected = zodAnswer(input);
      const got = parseExactEvmPayload(input);
      expect(got).toStrictEqual(expected);
      expect(got && Object.keys(got)).toStrictEqual(expected && Object.keys(expected));
      expect(got && Object.keys(got.authorization)).toStrictEqual(
        expected && Object.keys(expected.authorization),
      );
    },
  );

  it('the cases cover both answers', () => {
    const accepted = all.filter(([, c]) => parseExactEvmPayload(c) !== undefined).length;
    expect(accepted).toBeGreaterThan(100);
    expect(all.length - accepted).toBeGreaterThan(100);
  });

  it('a verified payload is known again without a second check', () => {
    const exact = parseExactEvmPayload(valid)!;
    const out = verifiedExactPayload(exact, valid.authorization);
    expect(parseExactEvmPayload(out)).toBe(exact);
  });
});
