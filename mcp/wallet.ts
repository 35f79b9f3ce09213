import type { MarketplaceClient } from '../src/client/index.js';
import type { McpConfig } from './config.js';
import type { McpDeps } from './deps.js';

/**
 * The signing client of the configured wallet, built once on first use (viem and x402 load then,
 * so a client connects without waiting for them); the key's own error text is never surfaced. On
 * a Revision A marketplace that first use also obtains the API key through SIWE (registering
 * under `hint.username`, MCP_USERNAME or a generated name, or rotating an existing account's key).
 */
export function lazyWallet(
  config: Pick<McpConfig, 'walletPrivateKey' | 'marketplaceUrl' | 'limits' | 'dataDir' | 'account'>,
): McpDeps['wallet'] {
  const key = config.walletPrivateKey;
  if (!key) return undefined;
  let client: Promise<MarketplaceClient> | undefined;
  return (hint) =>
    (client ??= (async () => {
      const [{ MarketplaceClient }, { privateKeyToAccount }] = await Promise.all([
        import('../src/client/index.js'),
        import('viem/accounts'),
      ]);
      let account;
      try {
        account = privateKeyToAccount(key);
      } catch {
        throw new Error('MCP_WALLET_PRIVATE_KEY is not a valid secp256k1 private key');
      }
      const wallet = new MarketplaceClient({
        baseUrl: config.marketplaceUrl,
        account,
        maxPaymentUsdc: config.limits.perPurchase,
      });
      // Revision A marketplaces: register or rotate through SIWE for the API key (kept locally).
      const { ensureApiKey } = await import('./revision-a/key.js');
      await ensureApiKey(wallet, {
        baseUrl: config.marketplaceUrl,
        dataDir: config.dataDir,
        country: config.account.country,
        username: hint?.username ?? config.account.username,
      });
      return wallet;
    })().catch((e: unknown) => {
      client = undefined; // a failed setup (say, registration) is tried again on the next call
      throw e;
    }));
}
