import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  decodeDeployData,
  erc6492SignatureValidatorAbi,
  erc6492SignatureValidatorByteCode,
  isAddressEqual,
  recoverAddress,
  type Hex,
} from 'viem';

/**
 * A loopback JSON-RPC node that knows a few single-owner smart accounts. It answers viem's
 * deployless ERC-6492 / ERC-1271 `eth_call` the way such an account's `isValidSignature` does:
 * valid when the owner's ECDSA signature recovers from the hash. Everything else is an RPC error.
 */
export interface FakeRpc {
  url: string;
  /** smart account address -> owner EOA */
  accounts: Map<string, string>;
  calls: number;
  close(): Promise<void>;
}

export async function startFakeRpc(): Promise<FakeRpc> {
  const state: FakeRpc = { url: '', accounts: new Map(), calls: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          id: number;
          method: string;
          params: unknown[];
        };
        const reply = (body: Record<string, unknown>) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...body }));
        };
        if (msg.method !== 'eth_call')
          return reply({ error: { code: -32601, message: 'method not found' } });
        state.calls++;
        try {
          const { data } = msg.params[0] as { data: Hex };
          const { args } = decodeDeployData({
            abi: erc6492SignatureValidatorAbi,
            bytecode: erc6492SignatureValidatorByteCode,
            data,
          });
          const [account, hash, signature] = args as [Hex, Hex, Hex];
          const owner = state.accounts.get(account.toLowerCase());
          let valid = false;
          if (owner) {
            try {
              valid = isAddressEqual(await recoverAddress({ hash, signature }), owner as Hex);
            } catch {
              valid = false;
            }
          }
          reply({ result: `0x${valid ? '1'.padStart(64, '0') : '0'.padStart(64, '0')}` });
        } catch {
          reply({ error: { code: 3, message: 'execution reverted' } });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
