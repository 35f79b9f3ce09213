import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signLink } from '../../src/domain/links/signed-links.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { registerAgent } from '../helpers/revision-a.js';
import { newWallet, promptOf, signPayment } from '../helpers/wallets.js';

/**
 * A buyer whose link expired (or who replays its spent payment after the window) is told where a fresh one comes from without paying again, and
 * that route exists in the deployment's revision: Revision A has no `GET /api/v1/orders/{uuid}`
 * (its keyed route is `/download`), so pointing there was a dead end.
 */
for (const revision of ['A', 'B'] as const) {
  describe(`Revision ${revision}`, () => {
    let t: TestContext;
    beforeAll(async () => {
      t = await startTestApp({ CONTRACT_REVISION: revision });
    });
    afterAll(() => t?.close());

    it('an expired link names the order route this deployment serves, and signing in again', async () => {
      // Revision A: payable once the seller linked a wallet (registration)
      const sellerAddress =
        revision === 'A' ? (await registerAgent(t.app)).wallet.address : undefined;
      const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5, sellerAddress });
      const url = `/api/v1/items/${item.itemId}/acquire`;
      const buyer = newWallet();
      const prompt = promptOf(await t.app.inject({ method: 'POST', url }));
      const accepted = prompt.accepts.find((a) => a.network === 'eip155:8453')!;
      const signed = await signPayment(buyer, prompt, accepted);
      const paid = await t.app.inject({
        method: 'POST',
        url,
        headers: { 'payment-signature': signed.header },
        payload: { chain: 'base', policy_accepted: true, license_accepted: true },
      });
      expect(paid.statusCode).toBe(200);
      const { order_id } = paid.json() as { order_id: string };

      const expired = signLink(
        t.runtime.deps.secrets.urlSigningKey,
        '',
        { kind: 'download', id: order_id, fileSha256: item.sha256 },
        60,
        Date.now() - 120_000,
      );
      const res = await t.app.inject(expired);
      expect(res.statusCode).toBe(403);
      const { error, message } = res.json() as { error: string; message: string };
      expect(error).toBe('link_expired');
      const route =
        revision === 'A'
          ? `GET /api/v1/orders/${order_id}/download with the buying account's x-api-key`
          : `GET /api/v1/orders/${order_id} with an identity proof`;
      expect(message).toContain(route);
      expect(message).toContain('SIGN-IN-WITH-X');
      // the named route exists here: without a credential it asks for one, it is not a 404
      const named = await t.app.inject(
        revision === 'A' ? `/api/v1/orders/${order_id}/download` : `/api/v1/orders/${order_id}`,
      );
      expect(named.statusCode).toBe(revision === 'A' ? 401 : 402);

      // the same payment replayed after its window mints nothing and says the same
      const validBefore = Number(
        (signed.payload.payload as { authorization: { validBefore: string } }).authorization
          .validBefore,
      );
      try {
        vi.useFakeTimers({ toFake: ['Date'] });
        vi.setSystemTime((validBefore + 3_600) * 1000);
        const late = await t.app.inject({
          method: 'POST',
          url,
          headers: { 'payment-signature': signed.header },
          payload: { chain: 'base', policy_accepted: true, license_accepted: true },
        });
        expect(late.statusCode).toBe(402);
        expect(late.json()).toMatchObject({
          reason: 'invalid_exact_evm_nonce_already_used',
          order_id,
          message: expect.stringContaining(route.replace(order_id, '{order_id}')),
        });
      } finally {
        vi.useRealTimers();
      }
    });
  });
}
