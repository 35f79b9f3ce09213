import { SettleError } from '@x402/core/types';
import { FacilitatorTimeoutError } from '@x402/core/http';
import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { representationOf } from '../../src/http/representation.js';
import { humanDuration, signLink, verifyLink } from '../../src/domain/links/signed-links.js';
import { checkAuthorization } from '../../src/x402/eip3009.js';
import { classifySettle, classifySettleError } from '../../src/x402/facilitator.js';

const net = 'eip155:8453' as const;

describe('settlement outcome classification (spec 7.1)', () => {
  it('maps answers and thrown errors onto settled / capacity / pending / failed', () => {
    expect(classifySettle({ success: true, transaction: '0xabc', network: net }).kind).toBe(
      'settled',
    );
    expect(
      classifySettle({
        success: false,
        errorReason: 'settlement_pending',
        transaction: '0xabc',
        network: net,
      }),
    ).toMatchObject({ kind: 'pending', transaction: '0xabc' });
    expect(
      classifySettle({
        success: false,
        errorReason: 'settlement_capacity',
        transaction: '',
        network: net,
      }).kind,
    ).toBe('capacity');
    expect(
      classifySettle(
        { success: false, errorReason: 'whatever', transaction: '', network: net },
        503,
      ).kind,
    ).toBe('capacity');
    expect(
      classifySettle({
        success: false,
        errorReason: 'invalid_exact_evm_transaction_failed',
        transaction: '',
        network: net,
      }),
    ).toMatchObject({ kind: 'failed', reason: 'invalid_exact_evm_transaction_failed' });
    expect(classifySettleError(new FacilitatorTimeoutError('settle', 100), net).kind).toBe(
      'pending',
    );
    // a connection never made is capacity; a fetch that failed otherwise may have been sent
    expect(
      classifySettleError(
        new TypeError('fetch failed', {
          cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
        }),
        net,
      ).kind,
    ).toBe('capacity');
    expect(classifySettleError(new TypeError('fetch failed'), net).kind).toBe('pending');
    expect(
      classifySettleError(
        new SettleError(400, {
          success: false,
          errorReason: 'invalid_exact_evm_transaction_failed',
          transaction: '',
          network: net,
        }),
        net,
      ).kind,
    ).toBe('failed');
  });
});

describe('authorization checks', () => {
  const auth = {
    from: '0x1111111111111111111111111111111111111111',
    to: '0x2222222222222222222222222222222222222222',
    value: 500n,
    validAfter: 0n,
    validBefore: 1_000_300n,
    nonce: `0x${'ab'.repeat(32)}`,
  } as const;
  const expect_ = {
    payTo: '0x2222222222222222222222222222222222222222',
    amount: '500',
    maxTimeoutSeconds: 300,
  };
  const opts = { nowSeconds: 1_000_000, skewSeconds: 30, settleMarginSeconds: 5 };
  it('accepts exactly what was asked and names the first mismatch otherwise', () => {
    expect(checkAuthorization(auth, expect_, opts)).toBeUndefined();
    expect(checkAuthorization({ ...auth, value: 499n }, expect_, opts)).toMatch(/value/);
    expect(checkAuthorization({ ...auth, to: auth.from }, expect_, opts)).toMatch(/recipient/);
    expect(checkAuthorization({ ...auth, validBefore: 1_000_004n }, expect_, opts)).toMatch(
      /valid_before/,
    );
    expect(checkAuthorization({ ...auth, validBefore: 1_000_331n }, expect_, opts)).toMatch(
      /valid_before/,
    );
    expect(checkAuthorization({ ...auth, validAfter: 1_000_031n }, expect_, opts)).toMatch(
      /valid_after/,
    );
    expect(checkAuthorization({ ...auth, validAfter: 1_000_030n }, expect_, opts)).toBeUndefined();
  });
});

describe('signed links and invoices', () => {
  const key = Buffer.alloc(32, 7);
  const target = { kind: 'download' as const, id: 'o-1', fileSha256: 'aa'.repeat(32) };
  it('verifies its own links and refuses changed fields', () => {
    const url = new URL(signLink(key, 'https://m.example', target, 900, 1_000_000));
    const exp = url.searchParams.get('exp')!;
    const sig = url.searchParams.get('sig')!;
    expect(() => verifyLink(key, target, exp, sig, 1_000_000)).not.toThrow();
    expect(() =>
      verifyLink(key, { ...target, fileSha256: 'bb'.repeat(32) }, exp, sig, 1_000_000),
    ).toThrow(/signature/);
    for (const kind of ['invoice', 'listing-invoice'] as const) {
      expect(() => verifyLink(key, { ...target, kind }, exp, sig, 1_000_000)).toThrow(/signature/);
    }
    expect(() => verifyLink(Buffer.alloc(32, 8), target, exp, sig, 1_000_000)).toThrow(/signature/);
    expect(() => verifyLink(key, target, exp, sig, 2_000_000)).toThrow(/expired/);
    expect(() => verifyLink(key, target, undefined, sig)).toThrow();
  });
  it('negotiates the invoice representation and words the lifetime', async () => {
    const app = Fastify();
    app.get('/', async (request) => representationOf(request));
    const pick = async (accept?: string) =>
      (await app.inject({ url: '/', headers: accept === undefined ? {} : { accept } })).body;
    expect(await pick(undefined)).toBe('json');
    expect(await pick('*/*')).toBe('json');
    expect(await pick('text/html,application/xhtml+xml')).toBe('html');
    expect(await pick('text/html;q=0.1, text/markdown')).toBe('markdown');
    expect(await pick('image/png')).toBe('json');
    await app.close();
    expect(humanDuration(900)).toBe('15 minutes');
    expect(humanDuration(3600)).toBe('1 hour');
    expect(humanDuration(61)).toBe('61 seconds');
  });
});
