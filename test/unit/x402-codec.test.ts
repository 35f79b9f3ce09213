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

  it('decodes as @x402/core on many headers: canonical, re-padded, cut, with foreign characters', () => {
    // a seeded generator (mulberry32), so a failure names a header that can be made again
    let seed = 0x5eed43;
    const rand = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const foreign = [' ', '\n', '\t', '-', '_', '.', '=', '==', '===', 'é', '\u00a0', '\0', '%'];
    const texts = [
      () =>
        JSON.stringify({
          x402Version: 2,
          payload: { n: rand(), s: 'größe 🦊'.repeat(rand() * 4) },
        }),
      () => '\ufeff' + JSON.stringify({ bom: rand() }),
      () => JSON.stringify([rand(), 'x'.repeat(rand() * 9)]) + ' '.repeat(rand() * 3),
      () => randomBytes(Math.floor(rand() * 12)).toString('latin1'),
    ];
    let checked = 0;
    for (let i = 0; i < 3000; i++) {
      const bytes = Buffer.from(pick(texts)(), i % 5 === 4 ? 'latin1' : 'utf8');
      let h = bytes.toString('base64');
      const at = Math.floor(rand() * (h.length + 1));
      switch (i % 8) {
        case 0: // as every encoder writes it
          break;
        case 1:
          h = h.replace(/=+$/, '');
          break;
        case 2:
          h = h.slice(0, at) + pick(foreign) + h.slice(at);
          break;
        case 3:
          h = h.slice(0, at);
          break;
        case 4: // the last character's unused bits set: decodes, but is not its bytes' own base64
          h = h.replace(
            /([A-Za-z0-9+/])(=+)$/,
            (_, c: string, p: string) =>
              String.fromCharCode(c.charCodeAt(0) + (c === 'z' || c === '9' || c === '/' ? 0 : 1)) +
              p,
          );
          break;
        case 5:
          h = `${h}${pick(foreign)}`;
          break;
        case 6:
          h = `${pick(foreign)}${h}`;
          break;
        case 7:
          h = h.replace(/=+$/, '') + '='.repeat(Math.floor(rand() * 4));
          break;
      }
      expect(outcome(ours.decodePaymentSignatureHeader, h), JSON.stringify(h)).toEqual(
        outcome(official.decodePaymentSignatureHeader, h),
      );
      checked++;
    }
    expect(checked).toBe(3000);
  });

  describe('a payment echoing extensions seen before', () => {
    // what the official client sends: the prompt's extensions echoed whole, after the payload
    const echo = {
      'payment-identifier': { info: { required: false } },
      bazaar: {
        info: { input: { type: 'http', method: 'POST', body: { chain: 'base' } } },
        schema: { type: 'object', properties: { input: { type: 'object' } }, required: ['input'] },
      },
      'sign-in-with-x': { info: { domain: '127.0.0.1', nonce: 'abc' } },
    };
    const echoText = JSON.stringify(echo);
    const payment = (nonce: string, extensions: unknown = echo) => ({
      x402Version: 2,
      payload: { authorization: { from: '0xabc', nonce }, signature: '0x01' },
      extensions,
      resource: { url: 'http://127.0.0.1/api/v1/items/x/acquire' },
      accepted: exampleRequirement,
    });
    const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
    /** Decodes enough payments carrying the echo for the codec to learn it. */
    const learn = (text: string) => {
      for (let i = 0; i < 20; i++)
        ours.decodePaymentSignatureHeader(b64(text.replace('"nonce":"n"', `"nonce":"l${i}"`)));
    };
    const base = JSON.stringify(payment('n'));

    it('decodes to what @x402/core decodes, the echo shared and frozen', () => {
      learn(base);
      const a = ours.decodePaymentSignatureHeader(b64(base)) as { extensions: unknown };
      const b = ours.decodePaymentSignatureHeader(b64(base.replace('"n"', '"m"'))) as {
        extensions: unknown;
      };
      expect(a).toEqual(official.decodePaymentSignatureHeader(b64(base)));
      expect(Object.keys(a)).toEqual(Object.keys(payment('n')));
      // the second payment's echo was not parsed again: the value learnt is shared
      expect(b.extensions).toBe(a.extensions);
      expect(Object.isFrozen((a.extensions as typeof echo).bazaar.schema.required)).toBe(true);
    });

    it('decides validity and every value as JSON.parse does, around a known echo', () => {
      learn(base);
      const at = base.indexOf(echoText);
      const before = base.slice(0, at);
      const after = base.slice(at + echoText.length);
      const texts = [
        base,
        // broken after or before the echo
        `${before}${echoText}${after.slice(0, -1)}`,
        `${before}${echoText}.5${after}`,
        `${before}${echoText}x${after}`,
        `${before}${echoText} ,${after}`,
        `{"x402Version":2,"extensions":${echoText}`,
        `[${before.slice(1)}${echoText}${after.slice(0, -1)}]`,
        `{"extensions"${echoText}}`,
        `{extensions":${echoText}}`,
        `{"a":"b"extensions":${echoText}}`,
        `{"a":"\\"extensions":${echoText}"}`,
        `{"a":"\\"extensions":${echoText}`,
        // the echo nested, or another top-level key named extensions
        `{"x402Version":2,"resource":{"extensions":${echoText}},"extensions":null}`,
        `{"x402Version":2,"resource":{"extensions":${echoText}},"ext\\u0065nsions":null}`,
        `{"x402Version":2,"ext\\u0065nsions":null,"extensions":${echoText}}`,
        `{"x402Version":2,"extensions":${echoText},"ext\\u0065nsions":1}`,
        `{"x402Version":2,"extensions":${echoText},"extensions":1}`,
        `{"x402Version":2,"extensions" :${echoText}}`,
        `{"x402Version":2,"extensions":${echoText}}`,
        `{"x402Version":2,"extensions":${echoText.slice(0, -1)},"more":1}}`,
        `{"x402Version":2,"extensions":${echoText}} `,
        `{"x402Version":2,"extensions":null}`,
        `{"x402Version":2,"extensions":${echoText}}}`,
      ];
      for (const text of texts) {
        expect(outcome(ours.decodePaymentSignatureHeader, b64(text)), text).toEqual(
          outcome(official.decodePaymentSignatureHeader, b64(text)),
        );
      }
    });
  });
});
