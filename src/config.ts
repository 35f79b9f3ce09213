import { z } from 'zod';

/**
 * The one place that reads the environment. `loadConfig(process.env)` parses every key at once and
 * reports every problem together, so an operator fixes a bad deployment in one pass.
 */

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const csv = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

export const ConfigSchema = z
  .object({
    // --- process and HTTP -------------------------------------------------------------------
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    /** Every absolute URL the service emits starts with this. Defaults to http://HOST:PORT. */
    PUBLIC_BASE_URL: z.url().optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Which contract revision this deployment follows: B (wallet identity, default) or A (API keys). */
    CONTRACT_REVISION: z.enum(['A', 'B']).default('B'),

    // --- storage of state -------------------------------------------------------------------
    DATA_DIR: z.string().min(1).default('./data'),
    /** Unset: embedded PGlite under DATA_DIR. Set: Postgres 15+ with pgvector. */
    DATABASE_URL: z.string().min(1).optional(),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    /** Keep the embedded database in memory only (tests); ignored with DATABASE_URL. */
    EMBEDDED_DB_IN_MEMORY: bool.default(false),

    /** HMAC key for signed download and invoice URLs. Generated and kept under DATA_DIR when embedded. */
    URL_SIGNING_SECRET: z.string().min(32).optional(),
    SIGNED_URL_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),

    // --- search -----------------------------------------------------------------------------
    /** OpenAI-compatible embeddings endpoint base (…/v1). Unset: the built-in offline embedder. */
    EMBEDDINGS_URL: z.url().optional(),
    EMBEDDINGS_MODEL: z.string().min(1).optional(),
    EMBEDDINGS_API_KEY: z.string().min(1).optional(),
    /** Vector dimension. Built-in embedder: 256 by default; remote: must match the model. */
    EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(8).max(4096).optional(),
    SEARCH_EF_SEARCH: z.coerce.number().int().min(10).max(1000).default(100),
    RATING_VISIBILITY_THRESHOLD: z.coerce.number().int().min(1).max(1000).default(5),

    // --- payouts ----------------------------------------------------------------------------
    /** Salt of the payout-contract factory: payout addresses are derived from it per seller and chain. */
    PAYOUT_FACTORY_SALT: z.string().min(1).default('marketplace-payout-v1'),

    // --- background work --------------------------------------------------------------------
    /** Run the scan worker and periodic jobs inside the HTTP process (embedded default). */
    IN_PROCESS_WORKER: bool.default(true),
  })
  .transform((c, ctx) => {
    if (c.DATABASE_URL && !c.URL_SIGNING_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['URL_SIGNING_SECRET'],
        message: 'required when DATABASE_URL is set (production secrets have no defaults)',
      });
    }
    if (c.EMBEDDINGS_URL && (!c.EMBEDDINGS_MODEL || !c.EMBEDDINGS_DIMENSIONS)) {
      ctx.addIssue({
        code: 'custom',
        path: ['EMBEDDINGS_MODEL'],
        message: 'EMBEDDINGS_URL needs EMBEDDINGS_MODEL and EMBEDDINGS_DIMENSIONS',
      });
    }
    const publicBaseUrl = (c.PUBLIC_BASE_URL ?? `http://${c.HOST}:${c.PORT}`).replace(/\/+$/, '');
    return { ...c, PUBLIC_BASE_URL: publicBaseUrl };
  });

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  // Empty strings count as unset: `FOO=` in an env file should mean "use the default".
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
  }
  return parsed.data;
}

export { bool as envBool, csv as envCsv };
