import {
  createSIWxPayload,
  encodeSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtension,
} from '@x402/extensions/sign-in-with-x';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';
import { newWallet, promptOf } from '../helpers/wallets.js';

/**
 * Review s27: a zero-value proof is bound to METHOD and path (its payTo is derived from
 * `GET /api/v1/agent/username`), but a SIGN-IN-WITH-X proof only to the URL: a proof the wallet
 * signed from the prompt of a READ (GET username) is accepted by the permanent WRITE on the same
 * URL (PUT username, allowed once, 409 forever after).
 */
let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('sign-in-with-x binds the method as the zero-value proof does', () => {
  it('a proof signed from the GET prompt does not authorise the PUT', async () => {
    const wallet = newWallet();
    await createSaleItem(t.runtime.deps, { sellerAddress: wallet.address.toLowerCase() });
    const url = '/api/v1/agent/username';
    const required = promptOf(await t.app.inject({ method: 'GET', url }));
    const ext = required.extensions?.[SIGN_IN_WITH_X] as SIWxExtension;
    const chain = ext.supportedChains[0]!;
    const proof = encodeSIWxHeader(
      await createSIWxPayload(
        { ...ext.info, chainId: chain.chainId, type: chain.type },
        wallet,
        ext.info.uri,
      ),
    );
    const put = await t.app.inject({
      method: 'PUT',
      url,
      headers: { 'sign-in-with-x': proof, 'content-type': 'application/json' },
      payload: JSON.stringify({ username: 'chosen_by_someone_else' }),
    });
    expect(put.statusCode, put.body).toBe(402);
  });

  it('a proof signed from the PUT prompt authorises the PUT (once)', async () => {
    const wallet = newWallet();
    await createSaleItem(t.runtime.deps, { sellerAddress: wallet.address.toLowerCase() });
    const url = '/api/v1/agent/username';
    const put = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'PUT',
        url,
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify({ username: `own_${wallet.address.slice(2, 10).toLowerCase()}` }),
      });
    const required = promptOf(await put({}));
    const ext = required.extensions?.[SIGN_IN_WITH_X] as SIWxExtension;
    const chain = ext.supportedChains[0]!;
    const proof = encodeSIWxHeader(
      await createSIWxPayload(
        { ...ext.info, chainId: chain.chainId, type: chain.type },
        wallet,
        ext.info.uri,
      ),
    );
    const res = await put({ 'sign-in-with-x': proof });
    expect(res.statusCode, res.body).toBe(200);
    expect((await put({ 'sign-in-with-x': proof })).statusCode).toBe(402);
  });
});
