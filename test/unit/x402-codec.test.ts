import { randomBytes } from 'node:crypto';
import * as official from '@x402/core/http';
import type { PaymentRequired, SettleResponse } from '@x402/core/types';
import { describe, expect, it } from 'vitest';
import * as ours from '../../src/x402/codec.js';
import { exampleRequirement } from '../helpers/wallets.js';

const settlement: SettleResponse = {
  success: true,
  transaction: `0x${randomBytes(32).toString('hex')}`,
  network: 'eip155:8453',
  payer: `0x${randomBytes(20).toString('hex')}`,
  amount: '100000',
};

const required = (description: string): PaymentRequired =>
  ({
    x402Version: 2,
    resource: { url: 'http://127.0.0.1/api/v1/items/x/acquire', description, mimeType: 'json' },
    accepts: [exampleRequirement],
  }) as PaymentRequired;

/** What @x402/core's decoder answers: the value, or that it throws. */
function outcome(decode: (h: string) => unknown, header: string) {
  try {
    return { value: decode(header) };
  } catch {
    return { throws: true };
  }
}

describe('x402 header codec', () => {
  it('encodes every header byte for byte as @x402/core does, non-ASCII text included', () => {
    for (const text of [
      'Purchase of item 42',
      'Kaufe “Übersetzer” 🦊 für 0,10 $',
      'lone \ud800 half',
    ]) {
      expect(ours.encodePaymentRequiredHeader(required(text))).toBe(
        official.encodePaymentRequiredHeader(required(text)),
      );
    }
    expect(ours.encodePaymentResponseHeader(settlement)).toBe(
      official.encodePaymentResponseHeader(settlement),
    );
    const withInternal = { ...settlement, extensionResponses: { bazaar: { ok: true } } };
    expect(ours.encodePaymentResponseHeader(withInternal)).toBe(
      official.encodePaymentResponseHeader(withInternal),
    );
  });

  it('decodes what @x402/core decodes and refuses what it refuses', () => {
    const good = official.encodePaymentSignatureHeader({
      x402Version: 2,
      payload: { note: 'größe 🦊' },
    } as never);
    const json = (s: string) => Buffer.from(s, 'utf8').toString('base64');
    const headers = [
      good,
      good.replace(/=+$/, ''), // unpadded
      `${good}=`,
      `${good}===`,
      `=${good}`,
      good.slice(0, -1),
      good.slice(0, -2),
      `${good.replace(/=+$/, '')}A`,
      'YQ',
      'YQ=',
      'YQ==',
      'YWJj=',
      'e30',
      'e30=',
      'e3 0=',
      'e30-',
      '',
      json('\ufeff{"bom":true}'),
      json('{"a":1}  '),
      json('[1,2]'),
      json('{"broken":'),
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]).toString('base64'),
    ];
    for (const h of headers) {
      expect(outcome(ours.decodePaymentSignatureHeader, h), h).toEqual(
        outcome(official.decodePaymentSignatureHeader, h),
      );
    }
  });
});
