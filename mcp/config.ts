import { z } from 'zod';

/**
 * The MCP server's own configuration (the marketplace's keys live in src/config.ts). Parsed once
 * at start-up; every problem is reported at once, and no message ever echoes a value, so a
 * mistyped private key never reaches a log.
 */
const McpEnvSchema = z.object({
  MARKETPLACE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .default('http://127.0.0.1:3000')
    .transform((u) => u.replace(/\/+$/, '')),
  MCP_WALLET_PRIVATE_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, { error: 'must be a 0x-prefixed 32-byte hex private key' })
    .optional(),
  MCP_MAX_PAYMENT_USDC: z.coerce
    .number({ error: 'must be a number of USDC' })
    .positive({ error: 'must be > 0' })
    .max(100, { error: 'must be <= 100 (the listing price cap)' })
    .default(10),
  MCP_HTTP_PORT: z.coerce
    .number({ error: 'must be a port number' })
    .int()
    .min(0)
    .max(65535)
    .optional(),
  MCP_HTTP_HOST: z.string().min(1).default('127.0.0.1'),
});

export interface McpConfig {
  marketplaceUrl: string;
  /** Absent: the paid and identity tools answer with a setup hint instead of signing. */
  walletPrivateKey: `0x${string}` | undefined;
  maxPaymentUsdc: number;
  /** Absent: stdio. */
  http: { port: number; host: string } | undefined;
}

export const DEFAULT_HTTP_PORT = 3001;

/** `--http` or `MCP_HTTP_PORT` selects Streamable HTTP; stdio otherwise. */
export function loadMcpConfig(
  env: Record<string, string | undefined>,
  argv: readonly string[] = [],
): McpConfig {
  const blankToUndefined = Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, v === '' ? undefined : v]),
  );
  const parsed = McpEnvSchema.safeParse(blankToUndefined);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid MCP configuration:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  const wantsHttp = argv.includes('--http') || e.MCP_HTTP_PORT !== undefined;
  return {
    marketplaceUrl: e.MARKETPLACE_URL,
    walletPrivateKey: e.MCP_WALLET_PRIVATE_KEY as `0x${string}` | undefined,
    maxPaymentUsdc: e.MCP_MAX_PAYMENT_USDC,
    http: wantsHttp
      ? { port: e.MCP_HTTP_PORT ?? DEFAULT_HTTP_PORT, host: e.MCP_HTTP_HOST }
      : undefined,
  };
}
