import type { MarketplaceClient } from '../src/client/index.js';
import { walletAccount, type AccountFace } from './account-face.js';
import { keyedAccount } from './revision-a/account.js';

/**
 * The account tools' face for a wallet client: Revision A's once the client holds an API key
 * (the wallet's first use reads the manifest and sets one up, revision-a/key.ts), else B's.
 */
export function accountFaceOf(wallet: Pick<MarketplaceClient, 'keyed'>): AccountFace {
  return wallet.keyed ? keyedAccount : walletAccount;
}
