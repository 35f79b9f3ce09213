import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import {
  createSIWxPayload,
  encodeSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtension,
} from '@x402/extensions/sign-in-with-x';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { LocalFacilitator } from '../../src/x402/local-facilitator.js';
import { startListeningTestApp, type ListeningTestContext } from './app.js';
import { ensureBuilt } from './build.js';

/**
 * The service the MCP files drive over both transports: listening on loopback (hosted `/mcp`),
 * its local facilitator funding each new payer with 10 USDC, and the built entry ready for the
 * local server over stdio. Started in a file's `beforeAll`.
 */
export async function startMcpTestService(): Promise<{
  t: ListeningTestContext;
  local: LocalFacilitator;
}> {
  const [t] = await Promise.all([
    startListeningTestApp({ LOCAL_FACILITATOR_START_BALANCE_USDC: '10' }),
    ensureBuilt(),
  ]);
  return { t, local: t.runtime.deps.facilitator as LocalFacilitator };
}

/**
 * An agent on the hosted MCP endpoint (`${base}/mcp`, Streamable HTTP) that follows the x402 MCP
 * transport: a new wallet of its own, the MCP SDK client, `@x402/core` with the `@x402/evm` exact
 * scheme to pay, and `@x402/extensions` to sign in. Proofs go in `params._meta` (`x402/payment`
 * or `sign-in-with-x`); the service holds no key.
 */
export async function hostedMcpAgent(base: string, name = 'hosted-agent') {
  const account = privateKeyToAccount(generatePrivateKey());
  const payer = new x402Client();
  registerExactEvmScheme(payer, { signer: account });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  const call = (
    tool: string,
    args: Record<string, unknown>,
    proof?: PaymentPayload | { siwx: string | object },
  ) =>
    client.callTool({
      name: tool,
      arguments: args,
      ...(proof && {
        _meta: 'siwx' in proof ? { 'sign-in-with-x': proof.siwx } : { 'x402/payment': proof },
      }),
    }) as Promise<CallToolResult>;
  /** The transport's client rule: structuredContent first, else content[0].text. */
  const requiredOf = (r: CallToolResult): PaymentRequired | undefined => {
    let s: Partial<PaymentRequired> | undefined;
    try {
      s = (r.structuredContent ??
        JSON.parse((r.content[0] as { text: string }).text)) as Partial<PaymentRequired>;
    } catch {
      return undefined; // a plain error text: not a payment prompt
    }
    return r.isError && s.x402Version && s.accepts ? (s as PaymentRequired) : undefined;
  };
  /**
   * A sign-in-with-x proof for a PaymentRequired's challenge, as @x402/extensions' client builds
   * it (wrapFetchWithSIWx's rule: the chain of accepts[0]), for the SIGN-IN-WITH-X value in _meta.
   */
  const signIn = async (required: PaymentRequired) => {
    const ext = required.extensions?.[SIGN_IN_WITH_X] as SIWxExtension;
    const chain = ext.supportedChains.find((c) => c.chainId === required.accepts[0]!.network)!;
    const payload = await createSIWxPayload(
      { ...ext.info, chainId: chain.chainId, type: chain.type },
      account,
      `${base}/mcp`,
    );
    return { siwx: encodeSIWxHeader(payload) };
  };
  return { account, payer, client, call, requiredOf, signIn };
}
