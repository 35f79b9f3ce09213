import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/**
 * The MCP server's own configuration (the marketplace's keys live in src/config.ts). Parsed once
 * at start-up; every problem is reported at once, and no message ever echoes a value, so a
 * mistyped private key or token never reaches a log.
 */
const usdc = (what: string, fallback: number, max = 100_000) =>
  z.coerce
    .number({ error: `must be a number of USDC (${what})` })
    .min(0, { error: 'must be >= 0' })
    .max(max, { error: `must be <= ${max}` })
    .default(fallback);

/** A comma-separated allow-list (lower-cased); empty: not restricted. */
const list = (what: string, ok: (v: string) => boolean) =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim().toLowerCase())
        .filter(Boolean),
    )
    .refine((xs) => xs.every(ok), { error: `must be a comma-separated list of ${what}` });

export const McpEnvSchema = z.object({
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
  MCP_DAILY_LIMIT_USDC: usdc('spent per rolling 24 hours', 25),
  MCP_MAX_LISTING_FEE_USDC: usdc('one listing fee', 0.05, 100),
  MCP_CONFIRM_ABOVE_USDC: usdc('purchases above it need a human', 2, 100),
  MCP_SESSION_LIMIT_USDC: usdc('signed per MCP session', 10),
  MCP_ALLOWED_HOSTS: list('host names', (h) => /^[a-z0-9.-]+(:\d+)?$/i.test(h)),
  MCP_ALLOWED_PAY_TO: list('0x addresses', (a) => /^0x[0-9a-fA-F]{40}$/.test(a)),
  MCP_ALLOWED_ASSETS: list('0x token addresses', (a) => /^0x[0-9a-fA-F]{40}$/.test(a)),
  MCP_DATA_DIR: z.string().min(1).optional(),
  MCP_DOWNLOAD_DIR: z.string().min(1).optional(),
  MCP_HTTP_PORT: z.coerce
    .number({ error: 'must be a port number' })
    .int()
    .min(0)
    .max(65535)
    .optional(),
  MCP_HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  MCP_HTTP_TOKEN: z.string().min(32, { error: 'must be at least 32 characters' }).optional(),
  /** Revision A marketplaces: the account the wallet registers (username public, country ISO). */
  MCP_USERNAME: z
    .string()
    .regex(/^[A-Za-z0-9](?:[A-Za-z0-9_-]{4,30})[A-Za-z0-9]$/, {
      error: 'must be 6-32 letters, digits, _ or -, starting and ending with a letter or digit',
    })
    .optional(),
  MCP_COUNTRY: z
    .string()
    .regex(/^[A-Za-z]{2}$/, { error: 'must be an ISO 3166-1 alpha-2 country code' })
    .transform((c) => c.toUpperCase())
    .optional(),
});

/** What a paying tool may spend (all USDC). */
export interface SpendingLimits {
  /** Most one purchase may cost (MCP_MAX_PAYMENT_USDC). */
  perPurchase: number;
  /** Most all payments (purchases and listing fees) may add up to in any 24 hours. */
  daily: number;
  /** Most one listing fee may cost. */
  listingFee: number;
  /** Purchases above this ask the human (elicitation) or are refused without it. */
  confirmAbove: number;
  /** Most one MCP session (a stdio run, an HTTP session) may sign for (MCP_SESSION_LIMIT_USDC). */
  perSession?: number;
}

export interface McpConfig {
  marketplaceUrl: string;
  /** Absent: the paid and identity tools answer with a setup hint instead of signing. */
  walletPrivateKey: `0x${string}` | undefined;
  limits: SpendingLimits;
  /** Recipients and assets the wallet may pay (empty: any the marketplace names). */
  allow: { payTo: string[]; assets: string[] };
  /** Holds state.json (orders bought here, the 24-hour spending ledger). */
  dataDir: string;
  /** Where acquire_item saves archives (and unpacks them on request). */
  downloadDir: string;
  /** Absent: stdio. */
  http: { port: number; host: string; token: string | undefined } | undefined;
  /** Revision A marketplaces: how the wallet registers to obtain its API key. */
  account: { username: string | undefined; country: string | undefined };
}

export const DEFAULT_HTTP_PORT = 3001;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
export const isLoopback = (host: string) => LOOPBACK.has(host);

/** `--http` or `MCP_HTTP_PORT` selects Streamable HTTP; stdio otherwise. */
export function loadMcpConfig(
  env: Record<string, string | undefined>,
  argv: readonly string[] = [],
): McpConfig {
  const blankToUndefined = Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, v === '' ? undefined : v]),
  );
  const parsed = McpEnvSchema.safeParse(blankToUndefined);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  const e = parsed.data;
  const wantsHttp = argv.includes('--http') || e?.MCP_HTTP_PORT !== undefined;
  if (e && wantsHttp && !isLoopback(e.MCP_HTTP_HOST) && !e.MCP_HTTP_TOKEN) {
    problems.push(
      '  MCP_HTTP_TOKEN: required when MCP_HTTP_HOST is not loopback (clients send it as Authorization: Bearer <token>)',
    );
  }
  if (e && e.MCP_ALLOWED_HOSTS.length) {
    const { host, hostname } = new URL(e.MARKETPLACE_URL);
    if (![host, hostname].some((h) => e.MCP_ALLOWED_HOSTS.includes(h.toLowerCase())))
      problems.push(
        `  MARKETPLACE_URL: its host is not in MCP_ALLOWED_HOSTS (${e.MCP_ALLOWED_HOSTS.join(', ')})`,
      );
  }
  if (!e || problems.length) {
    throw new Error(`Invalid MCP configuration:\n${problems.join('\n')}`);
  }
  const dataDir = path.resolve(
    e.MCP_DATA_DIR ?? path.join(env.HOME ?? homedir(), '.artifact-marketplace-mcp'),
  );
  return {
    marketplaceUrl: e.MARKETPLACE_URL,
    walletPrivateKey: e.MCP_WALLET_PRIVATE_KEY as `0x${string}` | undefined,
    limits: {
      perPurchase: e.MCP_MAX_PAYMENT_USDC,
      daily: e.MCP_DAILY_LIMIT_USDC,
      listingFee: e.MCP_MAX_LISTING_FEE_USDC,
      confirmAbove: e.MCP_CONFIRM_ABOVE_USDC,
      perSession: e.MCP_SESSION_LIMIT_USDC,
    },
    allow: { payTo: e.MCP_ALLOWED_PAY_TO, assets: e.MCP_ALLOWED_ASSETS },
    dataDir,
    downloadDir: path.resolve(e.MCP_DOWNLOAD_DIR ?? path.join(dataDir, 'downloads')),
    account: { username: e.MCP_USERNAME, country: e.MCP_COUNTRY },
    http: wantsHttp
      ? {
          port: e.MCP_HTTP_PORT ?? DEFAULT_HTTP_PORT,
          host: e.MCP_HTTP_HOST,
          token: e.MCP_HTTP_TOKEN,
        }
      : undefined,
  };
}
