import { parsePaymentPayload } from '@x402/core/schemas';
import { describe, expect, it } from 'vitest';
import { parsePaymentPayloadV2 } from '../../src/x402/payload-schema.js';
import { exampleRequirement } from '../helpers/wallets.js';

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

describe('x402 v2 payment payload schema', () => {
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
