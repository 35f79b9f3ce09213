import { decodePaymentRequiredHeader } from '@x402/core/http';
import {
  declarePaymentIdentifierExtension,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier';
import { describe, expect, it } from 'vitest';
import { MAX_PAYMENT_REQUIRED_HEADER, paymentRequired } from '../../src/x402/requirements.js';
import { exampleRequirement } from '../helpers/wallets.js';

/**
 * The `PAYMENT-REQUIRED` header stays under its 8 KB budget by shedding the largest extensions
 * first: a prompt whose catalogue entry is too large keeps its small protocol entries (the
 * payment-identifier declaration a retrying client needs); the body keeps everything.
 */
describe('an oversized prompt header', () => {
  const url = 'https://market.example/api/v1/items/x/acquire';
  const declared = declarePaymentIdentifierExtension(false);

  it('drops the largest entry and keeps payment-identifier', () => {
    const extensions = {
      [PAYMENT_IDENTIFIER]: declared,
      bazaar: { info: { padding: 'x'.repeat(9000) } },
      small: { info: { note: 'kept too' } },
    };
    const { body, header } = paymentRequired(url, [exampleRequirement], 'Item', extensions);
    expect(header.length).toBeLessThanOrEqual(MAX_PAYMENT_REQUIRED_HEADER);
    expect(body.extensions).toEqual(extensions);
    const decoded = decodePaymentRequiredHeader(header);
    expect(decoded.extensions).toEqual({ [PAYMENT_IDENTIFIER]: declared, small: extensions.small });
    expect(decoded.accepts).toEqual([exampleRequirement]);
  });

  it('keeps every entry when they fit, and drops them all only when nothing else fits', () => {
    const fits = paymentRequired(url, [exampleRequirement], 'Item', {
      [PAYMENT_IDENTIFIER]: declared,
    });
    expect(decodePaymentRequiredHeader(fits.header).extensions).toEqual({
      [PAYMENT_IDENTIFIER]: declared,
    });
    const huge = paymentRequired(url, [exampleRequirement], 'Item', {
      a: { info: 'x'.repeat(7000) },
      b: { info: 'y'.repeat(7000) },
    });
    expect(huge.header.length).toBeLessThanOrEqual(MAX_PAYMENT_REQUIRED_HEADER);
    expect(decodePaymentRequiredHeader(huge.header).extensions).toBeUndefined();
  });
});
