import { parsePaymentPayload } from '@x402/core/schemas';
import { describe, expect, it } from 'vitest';
import { parsePaymentPayloadV2 } from '../../src/x402/payload-schema.js';
import { exampleRequirement } from '../helpers/wallets.js';
import { ZodPaymentPayloadV2 } from '../helpers/zod-payment-payload.js';

const valid = {
  x402Version: 2,
  resource: {
    url: 'http://127.0.0.1/api/v1/items/x/acquire',
    description: 'Buy x',
    mimeType: 'application/json',
  },
  accepted: { ...exampleRequirement, extra: { ...exampleRequirement.extra } },
  payload: { signature: '0xabc', authorization: { from: '0x1' } },
};

type Payload = typeof valid & Record<string, unknown>;
const edit = (f: (p: Payload) => void) => {
  const p = structuredClone(valid) as Payload;
  f(p);
  return p;
};
const del = (o: Record<string, unknown>, k: string) => delete o[k];

const cases: Array<[string, unknown]> = [
  ['valid', valid],
  ['no resource', edit((p) => del(p, 'resource'))],
  ['null resource', edit((p) => Object.assign(p, { resource: null }))],
  ['null description', edit((p) => Object.assign(p.resource, { description: null }))],
  [
    'extra keys everywhere',
    edit((p) => Object.assign(p, { more: 1 }, { resource: { ...p.resource, x: 1 } })),
  ],
  [
    'service name and tags',
    edit((p) => Object.assign(p.resource, { serviceName: 'Shop', tags: ['a', 'b'] })),
  ],
  [
    'service name too long',
    edit((p) => Object.assign(p.resource, { serviceName: 'x'.repeat(33) })),
  ],
  ['service name not printable', edit((p) => Object.assign(p.resource, { serviceName: 'a\nb' }))],
  ['six tags', edit((p) => Object.assign(p.resource, { tags: ['a', 'b', 'c', 'd', 'e', 'f'] }))],
  ['empty tag', edit((p) => Object.assign(p.resource, { tags: [''] }))],
  ['long icon url', edit((p) => Object.assign(p.resource, { iconUrl: 'x'.repeat(2049) }))],
  ['empty resource url', edit((p) => Object.assign(p.resource, { url: '' }))],
  ['extensions', edit((p) => Object.assign(p, { extensions: { bazaar: { a: 1 } } }))],
  ['null extensions', edit((p) => Object.assign(p, { extensions: null }))],
  ['array extensions', edit((p) => Object.assign(p, { extensions: [1] }))],
  ['version 1', edit((p) => Object.assign(p, { x402Version: 1 }))],
  ['version "2"', edit((p) => Object.assign(p, { x402Version: '2' }))],
  ['version 3', edit((p) => Object.assign(p, { x402Version: 3 }))],
  ['no accepted', edit((p) => del(p, 'accepted'))],
  ['network without colon', edit((p) => Object.assign(p.accepted, { network: 'base' }))],
  ['network too short', edit((p) => Object.assign(p.accepted, { network: 'a:' }))],
  ['empty amount', edit((p) => Object.assign(p.accepted, { amount: '' }))],
  ['numeric amount', edit((p) => Object.assign(p.accepted, { amount: 100000 }))],
  ['zero timeout', edit((p) => Object.assign(p.accepted, { maxTimeoutSeconds: 0 }))],
  ['string timeout', edit((p) => Object.assign(p.accepted, { maxTimeoutSeconds: '300' }))],
  ['null extra', edit((p) => Object.assign(p.accepted, { extra: null }))],
  ['no extra', edit((p) => del(p.accepted, 'extra'))],
  ['string extra', edit((p) => Object.assign(p.accepted, { extra: 'x' }))],
  ['array payload', edit((p) => Object.assign(p, { payload: [] }))],
  ['null payload', edit((p) => Object.assign(p, { payload: null }))],
  ['no payload', edit((p) => del(p, 'payload'))],
  ['not an object', 'x'],
  ['null', null],
];

const zodAnswer = (v: unknown) => {
  const r = ZodPaymentPayloadV2.safeParse(v);
  return r.success ? r.data : undefined;
};

const json = (text: string) => JSON.parse(text) as unknown;
const validText = JSON.stringify(valid);
const sym = Symbol('s');
/** Inputs that only a hostile or broken client sends: odd prototypes, keys and values. */
const hostile: Array<[string, unknown]> = [
  [
    '__proto__ in payload',
    json(validText.replace('"payload":{', '"payload":{"__proto__":{"x":1},')),
  ],
  ['__proto__ in extra', json(validText.replace('"extra":{', '"extra":{"__proto__":1,'))],
  ['__proto__ at the top', json(validText.replace('{', '{"__proto__":{"x402Version":3},'))],
  ['constructor key in payload', edit((p) => Object.assign(p.payload, { constructor: 1 }))],
  ['constructor object in payload', edit((p) => Object.assign(p.payload, { constructor: {} }))],
  [
    'constructor function in payload',
    edit((p) => Object.assign(p.payload, { constructor: () => 1 })),
  ],
  [
    'null-prototype payload',
    edit((p) => Object.assign(p, { payload: Object.assign(Object.create(null), { a: 1 }) })),
  ],
  [
    'class instance payload',
    edit((p) =>
      Object.assign(p, {
        payload: new (class P {
          a = 1;
        })(),
      }),
    ),
  ],
  ['date payload', edit((p) => Object.assign(p, { payload: new Date(0) }))],
  ['map payload', edit((p) => Object.assign(p, { payload: new Map() }))],
  ['symbol key in payload', edit((p) => Object.assign(p.payload, { [sym]: 1 }))],
  [
    'hidden key in payload',
    edit((p) => Object.defineProperty(p.payload, 'hidden', { value: 1, enumerable: false })),
  ],
  [
    'numeric keys in extensions',
    edit((p) => Object.assign(p, { extensions: { 2: 'b', 1: 'a', z: 0 } })),
  ],
  ['undefined extensions', edit((p) => Object.assign(p, { extensions: undefined }))],
  ['undefined extra', edit((p) => Object.assign(p.accepted, { extra: undefined }))],
  ['undefined resource', edit((p) => Object.assign(p, { resource: undefined }))],
  ['undefined payload', edit((p) => Object.assign(p, { payload: undefined }))],
  ['undefined tags', edit((p) => Object.assign(p.resource, { tags: undefined }))],
  ['null url', edit((p) => Object.assign(p.resource, { url: null }))],
  ['array resource', edit((p) => Object.assign(p, { resource: [] }))],
  ['string resource', edit((p) => Object.assign(p, { resource: 'x' }))],
  ['array accepted', edit((p) => Object.assign(p, { accepted: [] }))],
  ['infinite timeout', edit((p) => Object.assign(p.accepted, { maxTimeoutSeconds: Infinity }))],
  ['NaN timeout', edit((p) => Object.assign(p.accepted, { maxTimeoutSeconds: NaN }))],
  ['fractional timeout', edit((p) => Object.assign(p.accepted, { maxTimeoutSeconds: 0.5 }))],
  ['negative timeout', edit((p) => Object.assign(p.accepted, { maxTimeoutSeconds: -1 }))],
  ['boxed string scheme', edit((p) => Object.assign(p.accepted, { scheme: new String('exact') }))],
  ['five tags', edit((p) => Object.assign(p.resource, { tags: ['a', 'b', 'c', 'd', 'e'] }))],
  ['tags not a list', edit((p) => Object.assign(p.resource, { tags: 'a' }))],
  ['tag with a null', edit((p) => Object.assign(p.resource, { tags: ['a', null] }))],
  [
    '32-character service name',
    edit((p) => Object.assign(p.resource, { serviceName: 'x'.repeat(32) })),
  ],
  ['non-ASCII service name', edit((p) => Object.assign(p.resource, { serviceName: 'café' }))],
  ['numeric description', edit((p) => Object.assign(p.resource, { description: 1 }))],
  [
    '2,048-character icon url',
    edit((p) => Object.assign(p.resource, { iconUrl: 'x'.repeat(2048) })),
  ],
  ['empty icon url', edit((p) => Object.assign(p.resource, { iconUrl: '' }))],
  ['three-character network', edit((p) => Object.assign(p.accepted, { network: 'a:b' }))],
  ['network as a list', edit((p) => Object.assign(p.accepted, { network: ['eip155:8453'] }))],
  ['empty asset', edit((p) => Object.assign(p.accepted, { asset: '' }))],
  ['empty payTo', edit((p) => Object.assign(p.accepted, { payTo: '' }))],
  ['empty scheme', edit((p) => Object.assign(p.accepted, { scheme: '' }))],
  [
    'extensions with a nested array',
    edit((p) => Object.assign(p, { extensions: { a: [1, { b: 2 }] } })),
  ],
  [
    'inherited version',
    Object.assign(
      Object.create({ x402Version: 2 }),
      structuredClone({ ...valid, x402Version: undefined }),
    ),
  ],
  [
    'inherited resource',
    Object.assign(
      Object.create({ resource: { url: 'u' } }),
      edit((p) => del(p, 'resource')),
    ),
  ],
  ['a list', [valid]],
  ['a number', 2],
  ['undefined', undefined],
];

describe('x402 v2 payment payload schema', () => {
  it.each([...cases, ...hostile])(
    '%s: the same object as the zod 4 schema built, key for key and in order',
    (_, input) => {
      const expected = zodAnswer(input);
      const got = parsePaymentPayloadV2(input);
      expect(got).toStrictEqual(expected);
      expect(JSON.stringify(got)).toBe(JSON.stringify(expected));
      if (got) {
        // copies, as zod's: what a later step changes never reaches the decoded header
        expect(got.payload).not.toBe((input as { payload: unknown }).payload);
        // a `__proto__` key is skipped, never made the copy's prototype
        const proto = (o: unknown) => (o ? Object.getPrototypeOf(o) : o) as unknown;
        const e = expected!;
        expect(proto(got.payload)).toBe(proto(e.payload));
        expect(proto(got.accepted.extra)).toBe(proto(e.accepted.extra));
        expect(proto(got.extensions)).toBe(proto(e.extensions));
      }
    },
  );

  it.each(cases)(
    '%s: accepted and cleaned exactly as @x402/core accepts a v2 payload',
    (_, input) => {
      const official = parsePaymentPayload(input);
      const expected =
        official.success && official.data.x402Version === 2 ? official.data : undefined;
      expect(parsePaymentPayloadV2(input)).toEqual(expected);
    },
  );

  it('the cases cover both answers', () => {
    const accepted = cases.filter(([, c]) => parsePaymentPayloadV2(c) !== undefined).length;
    expect(accepted).toBeGreaterThan(5);
    expect(cases.length - accepted).toBeGreaterThan(15);
  });
});
