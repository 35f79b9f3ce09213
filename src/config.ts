import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * The one place that reads the environment. `loadConfig(process.env)` parses every key at once and
 * reports every problem together, so an operator fixes a bad deployment in one pass.
 */

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const evmAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');
const privateKey = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex private key');
const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** proxy-addr's names for address ranges, as Fastify's trustProxy takes them. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An address, `address/prefix` (CIDR) or a named range; undefined when it is none of them. */
function proxyEntryProblem(entry: string): string | undefined {
  if (PROXY_RANGE_NAMES.includes(entry)) return undefined;
  const [ip, prefix, extra] = entry.split('/');
  const family = isIP(ip ?? '');
  if (!family || extra !== undefined) return `${entry} is not an address or CIDR`;
  if (prefix === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max)
    return `${entry}: the prefix length must be 0 to ${max}`;
  return undefined;
}

/**
 * Which proxies in front of the service are trusted for X-Forwarded-For/-Proto/-Host, as Fastify's
 * `trustProxy` takes it: `true` (every hop: the leftmost X-Forwarded-For entry is the client),
 * `false` (none: the socket's peer), a hop count (`1`: the peer is our one proxy, the client is the
 * last entry it appended), or a comma-separated list of addresses, CIDRs and the names loopback,
 * linklocal, uniquelocal (trusted proxies; the client is the nearest address not in it).
 */
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): boolean | number | string[] => {
    if (v === 'true' || v === 'yes') return true;
    if (v === 'false' || v === 'no') return false;
    if (/^\d+$/.test(v)) {
      const hops = Number(v);
      if (hops <= 100) return hops;
      ctx.addIssue({ code: 'custom', message: 'a hop count must be at most 100' });
      return z.NEVER;
    }
    const entries = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const problems = entries.map(proxyEntryProblem).filter((p) => p !== undefined);
    if (entries.length && !problems.length) return entries;
    ctx.addIssue({
      code: 'custom',
      message: `must be true, false, a hop count or a comma-separated list of addresses/CIDRs (${problems.join('; ') || 'empty'})`,
    });
    return z.NEVER;
  });

/**
 * OpenTelemetry tracing (OTLP/HTTP, JSON), off unless an endpoint is given or
 * OTEL_TRACES_EXPORTER=otlp (then http://localhost:4318): the standard variables' meaning. Shared
 * with the MCP server's entry (`loadTracingConfig`).
 */
const otelKeys = {
  OTEL_SDK_DISABLED: bool.default(false),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'none']).optional(),
  /** Base URL of the collector: traces go to <endpoint>/v1/traces. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** Full URL of the traces endpoint (wins over OTEL_EXPORTER_OTLP_ENDPOINT). */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  /** Headers sent to the collector: `key=value,key2=value2` (e.g. an authorization header). */
  OTEL_EXPORTER_OTLP_HEADERS: z.string().min(1).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
};

export const ConfigSchema = z
  .object({
    // --- process and HTTP -------------------------------------------------------------------
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    /** Every absolute URL the service emits starts with this. Defaults to http://HOST:PORT. */
    PUBLIC_BASE_URL: z.url().optional(),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info'),
    /**
     * Log lines: `json` (one JSON object per line) or `pretty` (readable, pino-pretty, a dev
     * dependency). Unset: pretty when stdout is a terminal and NODE_ENV is not production.
     */
    LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
    /**
     * `reindex` and `previews` draw a progress bar on a terminal; on a pipe (a job runner, `docker
     * exec` without -t) they write a plain progress line to stderr this often instead.
     */
    PROGRESS_INTERVAL_MS: z.coerce.number().int().min(10).default(5000),
    NODE_ENV: z.string().optional(),
    /** Which contract revision this deployment follows: B (wallet identity, default) or A (API keys). */
    CONTRACT_REVISION: z.enum(['A', 'B']).default('B'),
    /**
     * Slow or stalled clients (src/http/app.ts): the request line and headers must arrive within
     * HTTP_HEADERS_TIMEOUT_MS and the whole request, body included, within HTTP_REQUEST_TIMEOUT_MS
     * (then 408 and the connection is closed); a connection with no traffic at all is closed after
     * HTTP_IDLE_TIMEOUT_MS (above the longest paid request: verify + settle); an idle keep-alive
     * connection after HTTP_KEEP_ALIVE_TIMEOUT_MS (above a load balancer's idle timeout).
     */
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    HTTP_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(120_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(72_000),
    /**
     * The proxies trusted for the client address (rate limits, logs) and https (HSTS, console
     * cookies): true, false, a hop count or addresses/CIDRs (trustProxy above). Default: proxies on
     * private networks only (loopback, linklocal, uniquelocal: a Docker, compose or Kubernetes
     * proxy works unchanged), so a client reaching the service from a public address cannot choose
     * its address with X-Forwarded-For. Behind a public CDN, set its hop count or its ranges.
     */
    TRUST_PROXY: trustProxy.default(() => [...PROXY_RANGE_NAMES]),

    /**
     * The hosted MCP endpoint `POST /mcp` (Streamable HTTP, stateless, mcp/hosted/): the MCP tool
     * set in this process with no wallet of its own; paid tools answer the x402 MCP transport's
     * PaymentRequired and complete with the client's payment in `_meta["x402/payment"]`.
     */
    MCP_HOSTED_ENABLED: bool.default(true),
    /**
     * `/mcp` takes bodies up to the JSON upload's size (list_item's archive in base64): a body over
     * MCP_LARGE_BODY_BYTES (or of unknown length) counts as large, and one client address may have
     * at most MCP_LARGE_BODIES_PER_ADDRESS of them in flight in this process; more are 429
     * `too_many_large_requests` before their body is read (small calls are never counted).
     */
    MCP_LARGE_BODY_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
    MCP_LARGE_BODIES_PER_ADDRESS: z.coerce.number().int().min(1).default(2),

    // --- rate limits (src/http/plugins/rate-limit.ts; per replica, in process) ----------------
    /** Length of every rate-limit window. */
    RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    /**
     * Requests per client address and window without a credential: public routes, 402 prompts and
     * anything unsigned. A ceiling against floods: our own load bench (600/s from one address) passes.
     */
    RATE_LIMIT_PUBLIC_MAX: z.coerce.number().int().min(1).default(60_000),
    /** Revision A SIWE challenges per client address and window. */
    RATE_LIMIT_CHALLENGE_MAX: z.coerce.number().int().min(1).default(120),
    /** Requests per wallet (Revision B identity) or API key's account (Revision A) and window. */
    RATE_LIMIT_ACCOUNT_MAX: z.coerce.number().int().min(1).default(3_000),
    /**
     * Failed credentials per client address and window (bad API keys, rejected payment or identity
     * signatures, bad SIWE proofs); past it, every signed or keyed request of that address is 429.
     */
    RATE_LIMIT_FAILURE_MAX: z.coerce.number().int().min(1).default(30),

    // --- storage of state -------------------------------------------------------------------
    DATA_DIR: z.string().min(1).default('./data'),
    /** Unset: embedded PGlite under DATA_DIR. Set: Postgres 15+ with pgvector. */
    DATABASE_URL: z.string().min(1).optional(),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    /**
     * Seconds a new connection to DATABASE_URL may take to be ready (TCP, TLS, authentication).
     * While Postgres restarts or a network path hangs, a request waits at most this long for its
     * connection before it answers 503 `database_unavailable`; postgres.js's own default is 30.
     */
    DATABASE_CONNECT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(120).default(5),
    /**
     * Longest a statement of the serving processes (serve, worker, demo) may run on DATABASE_URL,
     * waiting for a lock included: Postgres cancels it past this (its `statement_timeout`) and the
     * request answers 503 `database_unavailable`, rather than a statement stuck behind an
     * operator's open transaction or a runaway query holding a pool connection for ever. The work
     * that waits longer on purpose runs without it (migrations, index builds, the operator
     * commands: docs/operating.md). 0: not set by the service (the server's or role's setting).
     * Fractions allowed. Ignored embedded (one in-process session that nobody else can lock).
     */
    DATABASE_STATEMENT_TIMEOUT_SECONDS: z.coerce.number().min(0).max(86_400).default(30),
    /**
     * A transaction of the serving processes left open and idle this long (a bug, a hung call
     * inside it) has its session ended by Postgres (`idle_in_transaction_session_timeout`), which
     * releases its locks; above the longest outside call a transaction makes (a remote embedding
     * at a scan's activation, 30 s). 0: not set by the service. Ignored embedded.
     */
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS: z.coerce.number().min(0).max(86_400).default(60),
    /** Keep the embedded database in memory only (tests); ignored with DATABASE_URL. */
    EMBEDDED_DB_IN_MEMORY: bool.default(false),
    /**
     * Run the embedded database on a worker thread of its own, so its work overlaps with request
     * handling on a second core; false keeps it on the main thread. Ignored with DATABASE_URL.
     */
    EMBEDDED_DB_THREAD: bool.default(false),
    /**
     * Each commit of the embedded database on disk waits until its WAL is flushed to the disk
     * (fsync), so a power loss keeps every acknowledged payment. false: commits reach the
     * operating system only (a killed process loses nothing, a power loss or kernel crash may
     * lose the last seconds). Ignored in memory and with DATABASE_URL (Postgres's own settings).
     */
    EMBEDDED_DB_FSYNC: bool.default(true),
    /**
     * Keep the embedded database's SQL parser on V8's baseline compiler (src/db/parser-baseline.ts):
     * optimising it takes ~600 MB for up to a second, the whole start peak. Takes effect only
     * under node's --experimental-wasm-compilation-hints --no-wasm-dynamic-tiering (npm start and
     * the image give them). Ignored with DATABASE_URL.
     */
    EMBEDDED_DB_PARSER_BASELINE: bool.default(true),
    /**
     * The embedded database has no checkpointer of its own (src/db/checkpoint.ts): the service
     * runs CHECKPOINT once this many MB of WAL were written since the last one, so the WAL on disk
     * and the replay after a crash stay bounded. 0: never by size. Ignored with DATABASE_URL.
     */
    EMBEDDED_CHECKPOINT_WAL_MB: z.coerce.number().min(0).default(64),
    /** ... or once this many seconds passed since the last one, if anything was written. 0: never by time. */
    EMBEDDED_CHECKPOINT_SECONDS: z.coerce.number().min(0).default(300),
    /** How often those two are checked (one small query). */
    EMBEDDED_CHECKPOINT_CHECK_SECONDS: z.coerce.number().positive().default(10),

    /** HMAC key for signed download and invoice URLs. Generated and kept under DATA_DIR when embedded. */
    URL_SIGNING_SECRET: z.string().min(32).optional(),
    /**
     * Key that signs each listing's scan report (EIP-712, issue 29); its address is published in
     * /api/v1/skills. Generated and kept under DATA_DIR when embedded; required with DATABASE_URL.
     */
    ATTESTATION_PRIVATE_KEY: privateKey.optional(),
    SIGNED_URL_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),

    // --- search -----------------------------------------------------------------------------
    /** OpenAI-compatible embeddings endpoint base (…/v1). Unset: the built-in offline embedder. */
    EMBEDDINGS_URL: z.url().optional(),
    EMBEDDINGS_MODEL: z.string().min(1).optional(),
    EMBEDDINGS_API_KEY: z.string().min(1).optional(),
    /** Vector dimension. Built-in embedder: 256 by default; remote: must match the model. */
    EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(8).max(4096).optional(),
    /**
     * The built-in embedder (without EMBEDDINGS_URL): `words` (word vectors and hashed features), or
     * `sentence`, which adds a sentence encoder shipped in an npm package (docs/search-meaning.md).
     * A change needs `npm run reindex`.
     */
    EMBEDDINGS_BUILTIN: z.enum(['words', 'sentence']).default('words'),
    /** Share of the sentence encoder's cosine in the built-in vector (EMBEDDINGS_BUILTIN=sentence). */
    EMBEDDINGS_SENTENCE_SHARE: z.coerce.number().min(0.05).max(1).default(0.6),
    SEARCH_EF_SEARCH: z.coerce.number().int().min(10).max(1000).default(100),
    RATING_VISIBILITY_THRESHOLD: z.coerce.number().int().min(1).max(1000).default(5),

    // --- feedback ---------------------------------------------------------------------------
    /** Days after an order's completion during which its buyer may give item feedback. */
    FEEDBACK_WINDOW_DAYS: z.coerce.number().min(0).default(30),
    /** Platform feedback messages per wallet per rolling 24 hours (then 429 rate_limited). */
    PLATFORM_FEEDBACK_DAILY_LIMIT: z.coerce.number().int().min(1).default(5),

    // --- payouts ----------------------------------------------------------------------------
    /** Salt of the payout-contract factory: payout addresses are derived from it per seller and chain. */
    PAYOUT_FACTORY_SALT: z.string().min(1).default('marketplace-payout-v1'),
    /**
     * Allocation of each new payout contract in basis points (seller + platform = 10000), fixed when
     * a seller's payout address is created; later changes apply to new sellers only.
     */
    PAYOUT_SELLER_BPS: z.coerce.number().int().min(0).max(10_000).default(9_500),
    PAYOUT_PLATFORM_BPS: z.coerce.number().int().min(0).max(10_000).default(500),
    /** Period of the payout job that forwards payout-address balances. */
    PAYOUT_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(900),
    /** A payout worker holds a payout address this long at most (a crashed worker's lease expires). */
    PAYOUT_LEASE_SECONDS: z.coerce.number().int().min(5).default(300),
    /** CREATE2 factory of payout contracts (PAYMENT_RAIL=chain; the same address on every chain). */
    PAYOUT_FACTORY_ADDRESS: evmAddress.optional(),
    /** How often missing payout contracts are deployed (PAYMENT_RAIL=chain). */
    PAYOUT_DEPLOY_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(15),

    // --- selling ----------------------------------------------------------------------------
    /** Largest accepted archive (bytes). A bigger upload is cut off while streaming with 413. */
    MAX_ARCHIVE_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024)
      .default(10_485_760),
    /** Allowed listing price range in USDC (inclusive). */
    MIN_PRICE_USDC: z.coerce.number().positive().default(0.1),
    MAX_PRICE_USDC: z.coerce.number().positive().default(100),
    /** Flat listing fee in USDC, paid over x402 with each upload. */
    LISTING_FEE_USDC: z.coerce.number().positive().default(0.01),
    /** Listings per seller that are pending, scanning or active at once. */
    MAX_ACTIVE_LISTINGS: z.coerce.number().int().min(1).default(100),
    /** Archive blob store: the filesystem (default) or an S3-compatible bucket. */
    STORAGE: z.enum(['fs', 's3']).default('fs'),
    /** Filesystem store root; defaults to DATA_DIR/archives. */
    ARCHIVES_DIR: z.string().min(1).optional(),
    S3_BUCKET: z.string().min(1).optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    /** Endpoint of an S3-compatible service (MinIO, R2…); unset for AWS S3. */
    S3_ENDPOINT: z.url().optional(),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_FORCE_PATH_STYLE: bool.default(false),
    S3_PREFIX: z.string().default(''),
    /**
     * Seconds an object store call may take until its answer starts (a put: its whole upload of
     * at most MAX_ARCHIVE_BYTES), the SDK's own retries included; then the call fails as the store
     * being out of reach (503 `storage_unavailable`; a scan waits for it). The SDK waits forever
     * by default on a path that accepts and never answers.
     */
    S3_TIMEOUT_SECONDS: z.coerce.number().positive().max(600).default(20),
    /** Scan limits: total extracted bytes, compression ratio, entries, nesting of archives. */
    SCAN_MAX_EXTRACTED_BYTES: z.coerce.number().int().min(1024).default(209_715_200),
    SCAN_MAX_RATIO: z.coerce.number().min(2).default(100),
    /** The ratio limit applies once an entry (or the archive) has inflated past this many bytes. */
    SCAN_RATIO_MIN_BYTES: z.coerce.number().int().min(0).default(1_048_576),
    SCAN_MAX_ENTRIES: z.coerce.number().int().min(1).default(10_000),
    SCAN_MAX_NESTING_DEPTH: z.coerce.number().int().min(0).max(5).default(1),
    /** A project needs this many distinct meaningful source lines (insufficient_complexity). */
    SCAN_MIN_SOURCE_LINES: z.coerce.number().int().min(0).default(20),
    /** Estimated line-set Jaccard similarity at or above which a listing is a near-copy. */
    SCAN_DUPLICATE_THRESHOLD: z.coerce.number().min(0.5).max(1).default(0.85),
    SCAN_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
    SCAN_RETRY_BASE_MS: z.coerce.number().int().min(0).default(5_000),
    /**
     * A running job's lease: its worker renews it every third of it while the job runs, so a job
     * whose worker died (kill -9, lost machine) is picked up again by another worker, or by the
     * restarted process, within this time.
     */
    SCAN_LEASE_SECONDS: z.coerce.number().int().min(5).default(30),
    WORKER_POLL_MS: z.coerce.number().int().min(10).default(1_000),
    /** Deleted listings are purged after this many days (bytes kept while an order needs them). */
    DELETED_RETENTION_DAYS: z.coerce.number().min(0).default(30),
    PURGE_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(3_600),

    // --- payments ---------------------------------------------------------------------------
    /**
     * Where money moves. `ledger` (default): the built-in facilitator's dev ledger, no chain.
     * `chain`: USDC on EVM chains over RPC_URL_BASE / RPC_URL_POLYGON: settlement through
     * FACILITATOR_URL or, unset, the in-process chain facilitator paying gas with
     * RELAYER_PRIVATE_KEY; per-seller payout contracts from PAYOUT_FACTORY_ADDRESS; payouts
     * read and forwarded over RPC.
     */
    PAYMENT_RAIL: z.enum(['ledger', 'chain']).default('ledger'),
    /** Key of the relayer that pays gas for settlements, payout deployments and payouts (chain rail). */
    RELAYER_PRIVATE_KEY: privateKey.optional(),
    /** Receipt wait of a settlement or payout before it is reported pending (chain rail). */
    CHAIN_CONFIRMATION_TIMEOUT_MS: z.coerce.number().int().min(100).max(25_000).default(15_000),
    /** Smart-wallet factories the chain facilitator may call to deploy an ERC-6492 payer. */
    EIP6492_ALLOWED_FACTORIES: csv.default([]),
    /** Standalone chain facilitator server (`npm run facilitator`): its port (HOST is shared). */
    FACILITATOR_PORT: z.coerce.number().int().min(0).max(65535).default(4020),
    /** USDC contracts (EIP-3009) per chain and their EIP-712 domain, advertised in `extra`. */
    USDC_ADDRESS_BASE: evmAddress.default('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
    USDC_ADDRESS_POLYGON: evmAddress.default('0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'),
    USDC_EIP712_NAME: z.string().min(1).default('USD Coin'),
    USDC_EIP712_VERSION: z.string().min(1).default('2'),
    /**
     * Revision A: the name of the prompt's discovery entry that the live clients read
     * (`extensions.<name>.input.completion_request.example`), carried beside `bazaar`.
     */
    DISCOVERY_CATALOG_NAME: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ or -, at most 64')
      .default('spawnxchange'),
    /**
     * Catalogue metadata on every 402 prompt's `resource` (x402 bazaar service metadata): the
     * service's name (printable ASCII, at most 32) and an optional icon (absolute https URL whose
     * host is a name, not an IP or loopback, as catalogues require).
     */
    SERVICE_NAME: z
      .string()
      .regex(/^[\x20-\x7e]{1,32}$/, 'printable ASCII, 1-32 characters')
      .default('Code artifact marketplace'),
    SERVICE_ICON_URL: z
      .url({ protocol: /^https$/, error: 'must be an absolute https URL' })
      .refine((u) => !isIP(new URL(u).hostname.replace(/^\[|\]$/g, '')), {
        error: 'the host must be a name, not an IP address',
      })
      .refine((u) => !/^localhost(\.|$)/i.test(new URL(u).hostname), {
        error: 'the host must not be loopback',
      })
      .optional(),
    /** JSON-RPC endpoints: smart-account signatures (EIP-1271 / ERC-6492) and receipt reconciliation. */
    RPC_URL_BASE: z.url().optional(),
    RPC_URL_POLYGON: z.url().optional(),
    /**
     * Smart-account signature checks over RPC (src/x402/smart-accounts.ts): the timeout of each
     * call (no retry), the calls in flight per chain (past that a check is refused at once), and
     * how long an address found without code is not asked again.
     */
    RPC_SIGNATURE_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(2_000),
    RPC_SIGNATURE_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(16),
    RPC_NO_CODE_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
    /** A standard x402 facilitator (/verify, /settle, /supported). Unset: the built-in local one. */
    FACILITATOR_URL: z.url().optional(),
    /**
     * Per facilitator call. Verify and settle together must stay under the 60 s clients wait, or a
     * client that gives up and re-signs could pay twice; a settle that times out is reported pending.
     */
    FACILITATOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(25_000).default(20_000),
    /** Recipient of listing fees (the platform treasury). Unset: derived from the signing secret. */
    PLATFORM_PAY_TO: evmAddress.optional(),
    /** Validity window advertised in prompts (`maxTimeoutSeconds`) and accepted on completion. */
    X402_MAX_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(600).default(300),
    /**
     * How long a `payment-identifier` id (issue 27) keeps answering its first payment after that
     * payment's authorization window closed; then the reconciliation pass forgets it.
     */
    X402_PAYMENT_ID_RETENTION_SECONDS: z.coerce.number().int().min(600).default(86_400),
    /** Tolerated clock skew between payer and server when checking validity windows. */
    X402_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
    /**
     * How long after an authorization's `validBefore` (by our clock) its transfer may still be
     * mined: a chain's block timestamps lag real time and our clock may run fast. Until then a
     * remote facilitator's unused authorization is not taken as never moving money (a claim is not
     * released, a failure at settlement not made final). The local ledger needs none.
     */
    X402_CHAIN_CLOCK_GRACE_SECONDS: z.coerce.number().int().min(0).max(3_600).default(120),
    /** Local facilitator: USDC balance a never-seen address starts with (dev ledger). */
    LOCAL_FACILITATOR_START_BALANCE_USDC: z.coerce.number().min(0).default(100),
    /** Region gating of commerce routes: request header carrying an ISO country code, and deny list. */
    REGION_COUNTRY_HEADER: z.string().min(1).default('cf-ipcountry'),
    REGION_DENY_LIST: csv.default([]),
    /**
     * Reconciliation of unresolved settlements: loop period, and age after which a claim whose
     * request has not recorded an outcome counts as abandoned (its process died) and is resolved
     * from the facilitator's or the chain's record. Together the two bound how long a paid
     * operation cut off by a crash waits to be completed (40 s by default).
     */
    RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(10),
    RECONCILE_STALE_SECONDS: z.coerce.number().int().min(0).default(30),
    /** Age after which a settlement still unresolved is logged at error level on every pass. */
    RECONCILE_ALERT_AFTER_SECONDS: z.coerce.number().int().min(0).default(600),
    /**
     * A chain that cannot be read (an RPC node without or failing a method the recheck needs)
     * leaves claims undecided: warned of once per network and RPC method this often.
     */
    RECONCILE_CHAIN_WARN_SECONDS: z.coerce.number().int().min(0).default(600),
    /** Seconds a client should wait after 503 settlement_capacity. */
    SETTLEMENT_RETRY_AFTER_SECONDS: z.coerce.number().int().min(1).default(5),

    // --- operator console (src/http/admin/, docs/console.md) --------------------------------
    /**
     * The operator's credential for /admin and the operator API (at least 32 characters). Required
     * with DATABASE_URL; embedded, one is generated under DATA_DIR/secrets on first start and
     * printed once in the log.
     */
    ADMIN_TOKEN: z.string().min(32).optional(),
    /** A console sign-in lasts this long (then sign in again). */
    ADMIN_SESSION_TTL_SECONDS: z.coerce.number().int().min(60).max(604_800).default(28_800),

    // --- metrics and traces (docs/operating.md, "Metrics and traces") -----------------------
    /**
     * Bearer token of `GET /metrics` (Prometheus text) on the main port. Unset: the main port has
     * no /metrics. With METRICS_PORT it is required on that listener too.
     */
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    /** A separate /metrics listener on METRICS_HOST:METRICS_PORT (serve and worker). Unset: none. */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** Interface of the METRICS_PORT listener: loopback unless the scraper is elsewhere. */
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    // OTEL_*: tracing, see otelKeys above
    ...otelKeys,

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
    if (c.DATABASE_URL && !c.ADMIN_TOKEN) {
      ctx.addIssue({
        code: 'custom',
        path: ['ADMIN_TOKEN'],
        message: 'required when DATABASE_URL is set (the operator console credential)',
      });
    }
    if (c.DATABASE_URL && !c.ATTESTATION_PRIVATE_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['ATTESTATION_PRIVATE_KEY'],
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
    if (c.FACILITATOR_URL) {
      // Without chain reads a settlement whose request died could never be resolved: the
      // reconciler reads the token's authorizationState and receipts over RPC.
      for (const key of ['RPC_URL_BASE', 'RPC_URL_POLYGON'] as const) {
        if (!c[key]) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message:
              'required when FACILITATOR_URL is set (the reconciler reads settlements from the chain)',
          });
        }
      }
    }
    if (c.PAYMENT_RAIL === 'chain') {
      const needs = [
        'RPC_URL_BASE',
        'RPC_URL_POLYGON',
        'PAYOUT_FACTORY_ADDRESS',
        'RELAYER_PRIVATE_KEY',
        'PLATFORM_PAY_TO',
      ] as const;
      for (const key of needs) {
        if (!c[key]) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: 'required when PAYMENT_RAIL=chain',
          });
        }
      }
    }
    if (c.STORAGE === 's3' && !c.S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'required when STORAGE=s3' });
    }
    if (c.PAYOUT_SELLER_BPS + c.PAYOUT_PLATFORM_BPS !== 10_000) {
      ctx.addIssue({
        code: 'custom',
        path: ['PAYOUT_SELLER_BPS'],
        message: 'PAYOUT_SELLER_BPS + PAYOUT_PLATFORM_BPS must be 10000',
      });
    }
    if (c.MIN_PRICE_USDC > c.MAX_PRICE_USDC) {
      ctx.addIssue({
        code: 'custom',
        path: ['MIN_PRICE_USDC'],
        message: 'must not exceed MAX_PRICE_USDC',
      });
    }
    const publicBaseUrl = (c.PUBLIC_BASE_URL ?? `http://${c.HOST}:${c.PORT}`).replace(/\/+$/, '');
    return { ...c, PUBLIC_BASE_URL: publicBaseUrl };
  });

export type Config = z.infer<typeof ConfigSchema>;

/**
 * A mistake the operator fixes (a locked data directory, an unreachable database, a busy port):
 * the process entry prints its message alone, without a stack trace, and exits non-zero.
 */
export class StartupError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StartupError';
  }
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  // Empty strings count as unset: `FOO=` in an env file should mean "use the default".
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  );
  // Parsed once per process: zod's compiled fast path for an object (a `new Function` generated
  // for its shape, then compiled) pays only for a schema parsed again and again, and for this
  // schema of ~100 keys it cost ~10 ms of every start's main thread (issue 25, docs/benchmarks.md
  // "Stop 44"). The same checks run, interpreted.
  const parsed = ConfigSchema.safeParse(cleaned, { jitless: true });
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
  }
  return parsed.data;
}

/** The OTEL_* keys alone, for a process without the service's configuration (the MCP server). */
export function loadTracingConfig(env: Record<string, string | undefined>) {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  );
  const parsed = z.object(otelKeys).safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`),
    );
  }
  return parsed.data;
}

export { bool as envBool, csv as envCsv };
