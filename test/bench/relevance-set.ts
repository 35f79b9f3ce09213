/**
 * The search relevance set (issue 11): listings and queries with graded judgments, written by hand
 * and independently of the ranking code. `npm run bench -- relevance` loads these listings into an
 * empty catalogue and scores every ranking variant on every query.
 *
 * Rules for editing: add listings and queries freely; never change a listing's text to make a query
 * find it (that measures the edit, not the ranking). The first 36 listings are a frozen copy of the
 * demo catalogue as it stood when the issue was filed, so that later demo edits do not move the
 * numbers.
 *
 * Judgments: `best` are the answers a buyer wants first (gain 3), `ok` are acceptable alternatives
 * (gain 1); every other listing is unrelated to the query.
 */

export interface RelevanceListing {
  key: string;
  title: string;
  techStack: string;
  description: string;
}

export type QueryKind = 'keyword' | 'paraphrase' | 'stack' | 'long';
export const QUERY_KINDS: QueryKind[] = ['keyword', 'paraphrase', 'stack', 'long'];

export interface RelevanceQuery {
  kind: QueryKind;
  q: string;
  best: string[];
  ok?: string[];
}

export const RELEVANCE_LISTINGS: RelevanceListing[] = [
  // ---- frozen copy of the demo catalogue ----
  {
    key: 'ratelimit-ts',
    title: 'Redis token-bucket rate limiter middleware',
    techStack: 'TypeScript, Express, Redis',
    description:
      'Express middleware enforcing per-client request quotas with a token bucket stored in Redis. Atomic Lua script, sliding refill, Retry-After headers, and a memory fallback for tests.',
  },
  {
    key: 'crawler-py',
    title: 'Headless news crawler with robots.txt support',
    techStack: 'Python, Playwright, SQLite',
    description:
      'Crawls news sites politely: honours robots.txt, per-domain delays, deduplicates articles by canonical URL and stores clean text and metadata in SQLite.',
  },
  {
    key: 'jwt-go',
    title: 'JWT login and refresh-token service',
    techStack: 'Go, PostgreSQL',
    description:
      'Authentication microservice issuing short-lived JWT access tokens and rotating refresh tokens, bcrypt password hashing, account lockout and audit log tables.',
  },
  {
    key: 'csv-rs',
    title: 'CSV to JSON streaming converter CLI',
    techStack: 'Rust',
    description:
      'Command-line tool converting large CSV files to JSON lines in constant memory, with type inference, header mapping and gzip input support.',
  },
  {
    key: 'admin-react',
    title: 'React admin dashboard starter',
    techStack: 'TypeScript, React, Vite, Tailwind',
    description:
      'Admin panel template with sidebar navigation, data tables with sorting and pagination, dark mode and chart widgets wired to a mock REST API.',
  },
  {
    key: 'stripe-billing',
    title: 'Stripe subscription billing backend',
    techStack: 'Node.js, Fastify, PostgreSQL, Stripe',
    description:
      'Subscription plans, checkout sessions, webhook verification, proration and invoice e-mails. Idempotent webhook handling with a processed-events table.',
  },
  {
    key: 'pdf-invoice-py',
    title: 'PDF invoice generator',
    techStack: 'Python, ReportLab',
    description:
      'Generates branded PDF invoices from JSON orders: line items, taxes, multiple currencies, QR payment code and page numbering.',
  },
  {
    key: 'thumbs-node',
    title: 'Image thumbnail resizing worker',
    techStack: 'Node.js, sharp, BullMQ, S3',
    description:
      'Queue worker that downloads uploaded images from S3, creates WebP and JPEG thumbnails in several sizes, and writes them back with cache headers.',
  },
  {
    key: 'discord-mod',
    title: 'Discord moderation bot',
    techStack: 'TypeScript, discord.js',
    description:
      'Bot that filters spam links, rate-limits message floods, assigns roles by reaction and logs moderation actions to a channel.',
  },
  {
    key: 'pg-exporter-go',
    title: 'Prometheus metrics exporter for PostgreSQL',
    techStack: 'Go, Prometheus, PostgreSQL',
    description:
      'Exports connection counts, replication lag, table bloat and slow query statistics as Prometheus metrics with Grafana dashboard JSON included.',
  },
  {
    key: 'blog-md-py',
    title: 'Markdown static blog generator',
    techStack: 'Python, Jinja2',
    description:
      'Builds a static site from Markdown posts with front matter, tags, RSS feed, syntax highlighting and incremental rebuilds.',
  },
  {
    key: 'ws-chat-node',
    title: 'WebSocket chat server with rooms',
    techStack: 'Node.js, ws, Redis',
    description:
      'Realtime chat with rooms, presence, message history in Redis streams and horizontal scaling through Redis pub/sub.',
  },
  {
    key: 'tf-k8s',
    title: 'Terraform module for a private Kubernetes cluster',
    techStack: 'Terraform, AWS, Kubernetes',
    description:
      'Provisions an EKS cluster in private subnets with managed node groups, IRSA, cluster autoscaler and encrypted secrets.',
  },
  {
    key: 'vesting-sol',
    title: 'Solidity ERC-20 vesting contract',
    techStack: 'Solidity, Foundry',
    description:
      'Token vesting with cliff and linear release, revocable schedules, full Foundry test suite and deployment scripts.',
  },
  {
    key: 'weather-py',
    title: 'Python weather forecast API client',
    techStack: 'Python, httpx',
    description:
      'Typed async client for public weather forecast APIs with caching, retries and unit conversion helpers.',
  },
  {
    key: 'urlshort-go',
    title: 'URL shortener with click analytics',
    techStack: 'Go, Redis, PostgreSQL',
    description:
      'Short links with custom slugs, expiry, redirect counting per referrer and country, and a small JSON API.',
  },
  {
    key: 'kanban-vue',
    title: 'Kanban todo board',
    techStack: 'TypeScript, Vue, Pinia',
    description:
      'Drag-and-drop task board with columns, labels, due dates and local persistence; keyboard shortcuts included.',
  },
  {
    key: 'lru-ts',
    title: 'LRU cache with TTL for Node.js',
    techStack: 'TypeScript',
    description:
      'Zero-dependency least-recently-used cache with per-entry time to live, size limits, hit ratio statistics and memoize helper.',
  },
  {
    key: 'fastapi-crud',
    title: 'FastAPI CRUD service template',
    techStack: 'Python, FastAPI, SQLAlchemy, PostgreSQL',
    description:
      'REST service skeleton with async SQLAlchemy models, Alembic migrations, pagination, OpenAPI docs and pytest fixtures.',
  },
  {
    key: 'newsletter-node',
    title: 'Email newsletter sender',
    techStack: 'Node.js, Nodemailer, SQLite',
    description:
      'Sends templated newsletters over SMTP with subscriber lists, double opt-in, unsubscribe links and bounce handling.',
  },
  {
    key: 'log-anomaly-py',
    title: 'Log file anomaly detector',
    techStack: 'Python, scikit-learn',
    description:
      'Parses application logs, learns normal message patterns with an isolation forest and alerts on unusual spikes or new error templates.',
  },
  {
    key: 'json-parser-cpp',
    title: 'Recursive descent JSON parser',
    techStack: 'C++',
    description:
      'Small standards-compliant JSON parser and serializer with precise error positions, UTF-8 validation and a DOM API.',
  },
  {
    key: 'cron-go',
    title: 'Cron job scheduler with retries',
    techStack: 'Go',
    description:
      'In-process scheduler for cron expressions with jittered retries, overlap prevention, and Prometheus job metrics.',
  },
  {
    key: 'vector-search-py',
    title: 'Vector similarity search service',
    techStack: 'Python, FastAPI, pgvector',
    description:
      'Stores text embeddings in PostgreSQL with pgvector and answers nearest-neighbour queries with metadata filters over HTTP.',
  },
  {
    key: 'snake-rs',
    title: 'Terminal snake game',
    techStack: 'Rust, crossterm',
    description:
      'Classic snake game for the terminal with levels, high scores saved to disk and colour themes.',
  },
  {
    key: 'gha-ci',
    title: 'GitHub Actions CI pipeline for monorepos',
    techStack: 'YAML, GitHub Actions, Docker',
    description:
      'Reusable workflows that detect changed packages, cache dependencies, run tests in parallel and publish Docker images.',
  },
  {
    key: 'telegram-expense',
    title: 'Telegram expense tracker bot',
    techStack: 'Python, aiogram, SQLite',
    description:
      'Chat bot that records expenses from messages, categorises them and replies with monthly summaries and charts.',
  },
  {
    key: 'd3-charts',
    title: 'D3 interactive sales charts',
    techStack: 'JavaScript, D3',
    description:
      'Reusable line, bar and stacked area chart components with tooltips, zoom and responsive resizing for dashboards.',
  },
  {
    key: 's3-upload-ts',
    title: 'S3 multipart upload helper',
    techStack: 'TypeScript, AWS SDK',
    description:
      'Uploads large files to S3-compatible buckets in parallel parts with resumable progress and checksum verification.',
  },
  {
    key: 'feature-flags',
    title: 'Feature flag service',
    techStack: 'Node.js, Fastify, Redis',
    description:
      'Percentage rollouts, user targeting rules, audit history and an SDK that caches flags with streaming updates.',
  },
  {
    key: 'ocr-receipts',
    title: 'OCR receipt scanner',
    techStack: 'Python, Tesseract, OpenCV',
    description:
      'Extracts merchant, date, totals and line items from photographed receipts with deskewing and confidence scores.',
  },
  {
    key: 'graphql-gateway',
    title: 'GraphQL API gateway',
    techStack: 'TypeScript, Apollo, Node.js',
    description:
      'Federated GraphQL gateway with schema stitching, per-field authorization, query cost limits and response caching.',
  },
  {
    key: 'password-strength',
    title: 'Password strength checker library',
    techStack: 'JavaScript',
    description:
      'Estimates password entropy, detects common patterns and leaked passwords from a bundled list, with localised feedback.',
  },
  {
    key: 'uptime-go',
    title: 'Uptime monitor with status page',
    techStack: 'Go, SQLite, HTML',
    description:
      'Checks HTTP endpoints on a schedule, records latency, sends alerts by e-mail and webhook, and serves a public status page.',
  },
  {
    key: 'sudoku-py',
    title: 'Sudoku solver and generator',
    techStack: 'Python',
    description:
      'Backtracking solver with constraint propagation, puzzle generator with difficulty grading, and a small CLI.',
  },
  {
    key: 'x402-paywall',
    title: 'x402 paywall middleware',
    techStack: 'TypeScript, Hono, viem',
    description:
      'Protects API routes with x402 USDC micropayments: issues payment requirements, verifies EIP-3009 signatures and settles through a facilitator.',
  },
  // ---- written for this set: stack twins of the catalogue's listings and hard distractors ----
  {
    key: 'csv-py',
    title: 'CSV to JSON converter script',
    techStack: 'Python',
    description:
      'Reads CSV files with the standard csv module, infers numbers and booleans, renames headers and writes a JSON array or JSON lines.',
  },
  {
    key: 'jwt-express',
    title: 'JWT authentication middleware',
    techStack: 'TypeScript, Express',
    description:
      'Express middleware that verifies bearer tokens, checks expiry, audience and issuer, loads the signing keys from a JWKS endpoint and attaches the user to the request.',
  },
  {
    key: 'ratelimit-flask',
    title: 'Request throttling decorator',
    techStack: 'Python, Flask, Redis',
    description:
      'Flask decorator limiting calls per API key with a sliding window counter in Redis and 429 responses with Retry-After.',
  },
  {
    key: 'cli-args-rs',
    title: 'Declarative command-line argument parser',
    techStack: 'Rust',
    description:
      'Derive-style parsing of flags, options and subcommands with typed values, generated --help text and shell completion scripts.',
  },
  {
    key: 'cli-args-go',
    title: 'Subcommand CLI framework',
    techStack: 'Go',
    description:
      'Builds command-line tools with nested subcommands, POSIX flags, environment variable fallbacks and generated usage pages.',
  },
  {
    key: 'email-py',
    title: 'Transactional email sender with templates',
    techStack: 'Python, Jinja2, SMTP',
    description:
      'Sends order confirmations and password reset e-mails from Jinja2 templates over SMTP with retries, attachments and a plain-text fallback.',
  },
  {
    key: 'ws-chat-go',
    title: 'Realtime chat backend',
    techStack: 'Go, gorilla/websocket',
    description:
      'WebSocket hub broadcasting messages to channels, typing indicators, read receipts and reconnect with missed-message replay.',
  },
  {
    key: 'lru-py',
    title: 'Memoization decorator with expiry',
    techStack: 'Python',
    description:
      'Least-recently-used cache decorator with per-key time to live, maximum size and cache statistics for pure functions.',
  },
  {
    key: 'scraper-node',
    title: 'Product price scraper',
    techStack: 'Node.js, Puppeteer',
    description:
      'Headless browser script that visits shop pages, extracts product names and prices with CSS selectors and exports the results to CSV.',
  },
  {
    key: 'pdf-report-node',
    title: 'HTML to PDF report renderer',
    techStack: 'Node.js, Puppeteer',
    description:
      'Renders HTML templates with charts into paginated PDF reports with headers, footers and a table of contents.',
  },
  {
    key: 'crud-express',
    title: 'REST API boilerplate',
    techStack: 'TypeScript, Express, Prisma, PostgreSQL',
    description:
      'CRUD endpoints with Prisma models, input validation, pagination, error middleware and integration tests.',
  },
  {
    key: 'cron-node',
    title: 'Background job scheduler',
    techStack: 'Node.js, TypeScript',
    description:
      'Runs recurring tasks from cron expressions in a Node.js process with time zones, retries with backoff and a lock so only one instance runs a job.',
  },
  {
    key: 'json-tokenizer-rs',
    title: 'Streaming JSON tokenizer',
    techStack: 'Rust',
    description:
      'Zero-copy incremental JSON lexer that emits events for large documents without building a tree, with byte offsets for errors.',
  },
  {
    key: 'image-resize-py',
    title: 'Batch image resizer',
    techStack: 'Python, Pillow',
    description:
      'Command-line tool that shrinks folders of photos to several widths, converts to WebP, strips EXIF data and keeps aspect ratios.',
  },
  {
    key: 'todo-react',
    title: 'Todo list app',
    techStack: 'TypeScript, React',
    description:
      'Task list with filters, inline editing, drag to reorder and localStorage persistence, written with React hooks.',
  },
  {
    key: 'redis-exporter-py',
    title: 'Redis metrics exporter',
    techStack: 'Python, Prometheus, Redis',
    description:
      'Publishes memory usage, keyspace hit rate, connected clients and replication offsets as Prometheus metrics.',
  },
  {
    key: 'urlshort-node',
    title: 'Link shortener API',
    techStack: 'Node.js, Express, MongoDB',
    description:
      'Creates short codes for long URLs, redirects visitors, tracks clicks and expires links after a date.',
  },
  {
    key: 'discord-music-py',
    title: 'Discord music bot',
    techStack: 'Python, discord.py',
    description:
      'Plays audio in voice channels with a song queue, skip votes, volume control and playlist import.',
  },
  {
    key: 'log-rotate-py',
    title: 'Log file rotation utility',
    techStack: 'Python',
    description:
      'Rotates, compresses and deletes old log files by size or age, with a config file and a dry-run mode.',
  },
  {
    key: 'access-log-go',
    title: 'Apache access log parser',
    techStack: 'Go',
    description:
      'Parses combined-format web server access logs into structured records and prints top paths, status codes and user agents.',
  },
  {
    key: 'upload-validator-ts',
    title: 'File upload validator',
    techStack: 'TypeScript, Node.js',
    description:
      'Checks uploaded files by magic bytes, size and extension allow-lists before they are stored, with clear error messages.',
  },
  {
    key: 'request-logger-express',
    title: 'Request logging middleware',
    techStack: 'TypeScript, Express',
    description:
      'Express middleware that logs method, path, status, latency and a request id for every HTTP request as JSON lines.',
  },
  {
    key: 'email-validate-js',
    title: 'Email address validation library',
    techStack: 'JavaScript',
    description:
      'Validates e-mail address syntax, detects disposable domains and typos in common providers, and checks MX records.',
  },
  {
    key: 'md-html-rs',
    title: 'Markdown to HTML converter',
    techStack: 'Rust',
    description:
      'CommonMark-compliant converter from Markdown text to HTML with tables, footnotes and syntax-highlighted code blocks.',
  },
  {
    key: 'yaml-config-py',
    title: 'YAML configuration loader',
    techStack: 'Python, PyYAML',
    description:
      'Loads layered YAML config files with environment overrides, schema validation and helpful error messages.',
  },
  {
    key: 'http-bench-rs',
    title: 'HTTP load testing tool',
    techStack: 'Rust, Tokio',
    description:
      'Command-line benchmark that fires concurrent HTTP requests, reports latency percentiles and throughput, and exports a histogram.',
  },
  {
    key: 'notify-node',
    title: 'Push and SMS notification service',
    techStack: 'Node.js, Fastify, Twilio',
    description:
      'Delivers user notifications by SMS and mobile push with per-user preferences, quiet hours and delivery receipts.',
  },
  {
    key: 'xlsx-export-py',
    title: 'Spreadsheet export library',
    techStack: 'Python, openpyxl',
    description:
      'Writes tabular data to Excel workbooks with styled headers, column widths, number formats and multiple sheets.',
  },
  {
    key: 'oauth-django',
    title: 'OAuth2 social login',
    techStack: 'Python, Django',
    description:
      'Sign in with Google and GitHub for Django sites: OAuth2 authorization code flow, account linking and session management.',
  },
  {
    key: 'go-middleware',
    title: 'HTTP middleware chain',
    techStack: 'Go',
    description:
      'Composable net/http middleware for request logging, panic recovery, CORS headers, gzip and timeouts.',
  },
  {
    key: 'zod-schemas',
    title: 'JSON schema validation helpers',
    techStack: 'TypeScript, Zod',
    description:
      'Reusable Zod schemas and helpers that validate JSON request bodies and turn failures into readable error lists.',
  },
  {
    key: 'sqlite-backup',
    title: 'SQLite backup script',
    techStack: 'Bash, SQLite',
    description:
      'Takes consistent online backups of SQLite databases, compresses them, keeps a rotation and uploads to object storage.',
  },
];

export const RELEVANCE_QUERIES: RelevanceQuery[] = [
  // ---- keyword: a few words naming the task, the way a person types into a search box ----
  { kind: 'keyword', q: 'rate limiter', best: ['ratelimit-ts', 'ratelimit-flask'] },
  { kind: 'keyword', q: 'web crawler', best: ['crawler-py'], ok: ['scraper-node'] },
  { kind: 'keyword', q: 'jwt refresh token', best: ['jwt-go'], ok: ['jwt-express'] },
  { kind: 'keyword', q: 'csv to json', best: ['csv-rs', 'csv-py'] },
  { kind: 'keyword', q: 'admin dashboard template', best: ['admin-react'] },
  { kind: 'keyword', q: 'stripe subscriptions', best: ['stripe-billing'] },
  { kind: 'keyword', q: 'pdf invoice', best: ['pdf-invoice-py'], ok: ['pdf-report-node'] },
  { kind: 'keyword', q: 'image thumbnails', best: ['thumbs-node'], ok: ['image-resize-py'] },
  { kind: 'keyword', q: 'discord bot', best: ['discord-mod', 'discord-music-py'] },
  {
    kind: 'keyword',
    q: 'postgres prometheus exporter',
    best: ['pg-exporter-go'],
    ok: ['redis-exporter-py'],
  },
  {
    kind: 'keyword',
    q: 'static site generator markdown',
    best: ['blog-md-py'],
    ok: ['md-html-rs'],
  },
  { kind: 'keyword', q: 'websocket chat', best: ['ws-chat-node', 'ws-chat-go'] },
  { kind: 'keyword', q: 'eks terraform', best: ['tf-k8s'] },
  { kind: 'keyword', q: 'token vesting', best: ['vesting-sol'] },
  { kind: 'keyword', q: 'weather api client', best: ['weather-py'] },
  { kind: 'keyword', q: 'url shortener', best: ['urlshort-go', 'urlshort-node'] },
  { kind: 'keyword', q: 'kanban board', best: ['kanban-vue'], ok: ['todo-react'] },
  { kind: 'keyword', q: 'lru cache', best: ['lru-ts', 'lru-py'] },
  { kind: 'keyword', q: 'email newsletter', best: ['newsletter-node'], ok: ['email-py'] },
  { kind: 'keyword', q: 'log anomaly detection', best: ['log-anomaly-py'] },
  { kind: 'keyword', q: 'json parser', best: ['json-parser-cpp'], ok: ['json-tokenizer-rs'] },
  { kind: 'keyword', q: 'cron scheduler', best: ['cron-go', 'cron-node'] },
  { kind: 'keyword', q: 'vector similarity search', best: ['vector-search-py'] },
  { kind: 'keyword', q: 'snake game', best: ['snake-rs'] },
  { kind: 'keyword', q: 'github actions monorepo', best: ['gha-ci'] },
  { kind: 'keyword', q: 'expense tracker', best: ['telegram-expense'] },
  { kind: 'keyword', q: 'sales charts d3', best: ['d3-charts'] },
  { kind: 'keyword', q: 's3 multipart upload', best: ['s3-upload-ts'] },
  { kind: 'keyword', q: 'feature flags', best: ['feature-flags'] },
  { kind: 'keyword', q: 'receipt ocr', best: ['ocr-receipts'] },
  { kind: 'keyword', q: 'graphql gateway', best: ['graphql-gateway'] },
  { kind: 'keyword', q: 'password strength', best: ['password-strength'] },
  { kind: 'keyword', q: 'uptime monitoring status page', best: ['uptime-go'] },
  { kind: 'keyword', q: 'sudoku solver', best: ['sudoku-py'] },
  { kind: 'keyword', q: 'x402 paywall', best: ['x402-paywall'] },
  { kind: 'keyword', q: 'access log parser', best: ['access-log-go'], ok: ['log-anomaly-py'] },
  { kind: 'keyword', q: 'log rotation', best: ['log-rotate-py'] },
  { kind: 'keyword', q: 'email validation', best: ['email-validate-js'] },
  { kind: 'keyword', q: 'load testing tool', best: ['http-bench-rs'] },
  { kind: 'keyword', q: 'excel export', best: ['xlsx-export-py'] },

  // ---- paraphrase: the need in other words, little overlap with the listing's own text ----
  {
    kind: 'paraphrase',
    q: 'throttle how many requests each API client may send',
    best: ['ratelimit-ts', 'ratelimit-flask'],
  },
  {
    kind: 'paraphrase',
    q: 'scraper that harvests articles from websites',
    best: ['crawler-py'],
    ok: ['scraper-node'],
  },
  {
    kind: 'paraphrase',
    q: 'issue access tokens when users sign in',
    best: ['jwt-go'],
    ok: ['jwt-express', 'oauth-django'],
  },
  {
    kind: 'paraphrase',
    q: 'turn spreadsheet exports into json records',
    best: ['csv-rs', 'csv-py'],
    ok: ['xlsx-export-py'],
  },
  { kind: 'paraphrase', q: 'charge customers monthly for a plan', best: ['stripe-billing'] },
  {
    kind: 'paraphrase',
    q: 'make bills for orders as printable documents',
    best: ['pdf-invoice-py'],
    ok: ['pdf-report-node'],
  },
  {
    kind: 'paraphrase',
    q: 'shrink pictures people upload into small previews',
    best: ['thumbs-node', 'image-resize-py'],
  },
  { kind: 'paraphrase', q: 'keep spammers out of my community server', best: ['discord-mod'] },
  { kind: 'paraphrase', q: 'watch database replication lag in grafana', best: ['pg-exporter-go'] },
  {
    kind: 'paraphrase',
    q: 'publish my writing as a website from text files',
    best: ['blog-md-py'],
    ok: ['md-html-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'let users talk to each other live in the browser',
    best: ['ws-chat-node', 'ws-chat-go'],
  },
  {
    kind: 'paraphrase',
    q: 'release employee tokens gradually over years on ethereum',
    best: ['vesting-sol'],
  },
  { kind: 'paraphrase', q: 'will it rain tomorrow data for my app', best: ['weather-py'] },
  {
    kind: 'paraphrase',
    q: 'count who clicks my links',
    best: ['urlshort-go'],
    ok: ['urlshort-node'],
  },
  {
    kind: 'paraphrase',
    q: 'remember results of expensive function calls for a while',
    best: ['lru-ts', 'lru-py'],
  },
  {
    kind: 'paraphrase',
    q: 'mail a weekly digest to people who subscribed',
    best: ['newsletter-node'],
    ok: ['email-py'],
  },
  {
    kind: 'paraphrase',
    q: 'spot unusual errors in server output automatically',
    best: ['log-anomaly-py'],
    ok: ['uptime-go'],
  },
  {
    kind: 'paraphrase',
    q: 'run a task every night and try again if it fails',
    best: ['cron-go', 'cron-node'],
  },
  {
    kind: 'paraphrase',
    q: 'find similar documents by meaning using embeddings',
    best: ['vector-search-py'],
  },
  { kind: 'paraphrase', q: 'retro arcade game to play in the console', best: ['snake-rs'] },
  {
    kind: 'paraphrase',
    q: 'build and test only the packages that changed on each push',
    best: ['gha-ci'],
  },
  { kind: 'paraphrase', q: 'log my spending by chatting with a bot', best: ['telegram-expense'] },
  {
    kind: 'paraphrase',
    q: 'visualise revenue over time in the browser',
    best: ['d3-charts'],
    ok: ['admin-react'],
  },
  { kind: 'paraphrase', q: 'send huge files to object storage in chunks', best: ['s3-upload-ts'] },
  { kind: 'paraphrase', q: 'turn features on for a percentage of users', best: ['feature-flags'] },
  { kind: 'paraphrase', q: 'read totals from photos of shop receipts', best: ['ocr-receipts'] },
  {
    kind: 'paraphrase',
    q: 'tell users their chosen password is too weak',
    best: ['password-strength'],
  },
  { kind: 'paraphrase', q: 'get alerted when my website goes down', best: ['uptime-go'] },
  {
    kind: 'paraphrase',
    q: 'charge agents per api call in stablecoins',
    best: ['x402-paywall'],
    ok: ['stripe-billing'],
  },
  { kind: 'paraphrase', q: 'stop old logs from filling the disk', best: ['log-rotate-py'] },
  {
    kind: 'paraphrase',
    q: 'how fast can my web server answer under heavy traffic',
    best: ['http-bench-rs'],
  },
  { kind: 'paraphrase', q: 'text people when something happens in my app', best: ['notify-node'] },
  {
    kind: 'paraphrase',
    q: 'let visitors log in with their google account',
    best: ['oauth-django'],
  },
  {
    kind: 'paraphrase',
    q: 'copy my local database somewhere safe every day',
    best: ['sqlite-backup'],
  },

  // ---- stack: the named language, framework or platform decides between near-identical tasks ----
  {
    kind: 'stack',
    q: 'parse csv files in python',
    best: ['csv-py'],
    ok: ['csv-rs', 'xlsx-export-py'],
  },
  { kind: 'stack', q: 'csv converter rust', best: ['csv-rs'], ok: ['csv-py'] },
  { kind: 'stack', q: 'jwt auth middleware for express', best: ['jwt-express'], ok: ['jwt-go'] },
  { kind: 'stack', q: 'jwt authentication service in go', best: ['jwt-go'], ok: ['jwt-express'] },
  { kind: 'stack', q: 'rust cli argument parsing', best: ['cli-args-rs'], ok: ['cli-args-go'] },
  {
    kind: 'stack',
    q: 'golang command line flags and subcommands',
    best: ['cli-args-go'],
    ok: ['cli-args-rs'],
  },
  { kind: 'stack', q: 'rate limiting for flask', best: ['ratelimit-flask'], ok: ['ratelimit-ts'] },
  {
    kind: 'stack',
    q: 'express rate limit middleware',
    best: ['ratelimit-ts'],
    ok: ['ratelimit-flask'],
  },
  { kind: 'stack', q: 'send emails from python', best: ['email-py'], ok: ['newsletter-node'] },
  { kind: 'stack', q: 'nodemailer newsletter', best: ['newsletter-node'], ok: ['email-py'] },
  { kind: 'stack', q: 'websocket chat in go', best: ['ws-chat-go'], ok: ['ws-chat-node'] },
  { kind: 'stack', q: 'node.js websocket chat rooms', best: ['ws-chat-node'], ok: ['ws-chat-go'] },
  { kind: 'stack', q: 'python caching decorator', best: ['lru-py'], ok: ['lru-ts'] },
  { kind: 'stack', q: 'typescript lru cache', best: ['lru-ts'], ok: ['lru-py'] },
  {
    kind: 'stack',
    q: 'puppeteer scraping',
    best: ['scraper-node'],
    ok: ['crawler-py', 'pdf-report-node'],
  },
  { kind: 'stack', q: 'python web crawler', best: ['crawler-py'], ok: ['scraper-node'] },
  {
    kind: 'stack',
    q: 'pdf generation with node',
    best: ['pdf-report-node'],
    ok: ['pdf-invoice-py'],
  },
  { kind: 'stack', q: 'python pdf invoices', best: ['pdf-invoice-py'], ok: ['pdf-report-node'] },
  {
    kind: 'stack',
    q: 'crud api with express and prisma',
    best: ['crud-express'],
    ok: ['fastapi-crud'],
  },
  { kind: 'stack', q: 'fastapi rest crud', best: ['fastapi-crud'], ok: ['crud-express'] },
  { kind: 'stack', q: 'job scheduler for node', best: ['cron-node'], ok: ['cron-go'] },
  { kind: 'stack', q: 'go cron jobs', best: ['cron-go'], ok: ['cron-node'] },
  { kind: 'stack', q: 'json parser in c++', best: ['json-parser-cpp'], ok: ['json-tokenizer-rs'] },
  {
    kind: 'stack',
    q: 'rust json streaming parser',
    best: ['json-tokenizer-rs'],
    ok: ['json-parser-cpp'],
  },
  { kind: 'stack', q: 'resize images with python', best: ['image-resize-py'], ok: ['thumbs-node'] },
  { kind: 'stack', q: 'react todo app', best: ['todo-react'], ok: ['kanban-vue'] },
  { kind: 'stack', q: 'vue task board', best: ['kanban-vue'], ok: ['todo-react'] },
  {
    kind: 'stack',
    q: 'prometheus exporter written in python',
    best: ['redis-exporter-py'],
    ok: ['pg-exporter-go'],
  },
  { kind: 'stack', q: 'mongodb url shortener', best: ['urlshort-node'], ok: ['urlshort-go'] },
  { kind: 'stack', q: 'python discord bot', best: ['discord-music-py'], ok: ['discord-mod'] },
  { kind: 'stack', q: 'typescript discord bot', best: ['discord-mod'], ok: ['discord-music-py'] },
  { kind: 'stack', q: 'django login with google', best: ['oauth-django'] },

  // ---- long: a task description, the way an agent would pass its current prompt ----
  {
    kind: 'long',
    q: 'I am building a public REST API in TypeScript on Express and need to stop abusive clients: each API key should get a fixed number of requests per minute, with the counters shared across several server instances.',
    best: ['ratelimit-ts'],
    ok: ['ratelimit-flask'],
  },
  {
    kind: 'long',
    q: 'My agent has to collect the full text of news articles from a list of publisher websites every morning without hammering their servers or ignoring their crawl rules, and keep everything in a local database.',
    best: ['crawler-py'],
    ok: ['scraper-node'],
  },
  {
    kind: 'long',
    q: 'We have a Python data pipeline that receives comma separated exports from a partner every hour; the rows must become JSON objects with proper numbers and booleans before we load them.',
    best: ['csv-py'],
    ok: ['csv-rs'],
  },
  {
    kind: 'long',
    q: 'Write a Go service where users log in with a password and receive a short lived access token plus a refresh token that rotates, and lock accounts after repeated failures.',
    best: ['jwt-go'],
    ok: ['jwt-express', 'oauth-django'],
  },
  {
    kind: 'long',
    q: 'Our SaaS needs monthly and yearly plans, a hosted checkout page, webhooks that update the subscription state reliably, and invoices sent to customers by mail.',
    best: ['stripe-billing'],
  },
  {
    kind: 'long',
    q: 'Add a command line interface to my Rust program: it takes several subcommands with typed options, and should print good help output and generate completions for bash and zsh.',
    best: ['cli-args-rs'],
    ok: ['cli-args-go'],
  },
  {
    kind: 'long',
    q: 'When an order is placed in our Django shop we want to e-mail the customer a confirmation rendered from a template, with the receipt attached, retrying if the mail server is unavailable.',
    best: ['email-py'],
    ok: ['newsletter-node', 'pdf-invoice-py'],
  },
  {
    kind: 'long',
    q: 'Users upload profile photos to an S3 bucket; a background worker should pick them up from a queue and produce small and medium WebP versions for the website.',
    best: ['thumbs-node'],
    ok: ['image-resize-py', 's3-upload-ts'],
  },
  {
    kind: 'long',
    q: 'I need to see the health of our PostgreSQL primary and replicas on a Grafana dashboard, including how far behind the replicas are and which queries are slow.',
    best: ['pg-exporter-go'],
    ok: ['redis-exporter-py'],
  },
  {
    kind: 'long',
    q: 'Build a small multiplayer chat for our web game: players join rooms, see who is online, and messages must reach everyone even when we run several Node.js servers behind a load balancer.',
    best: ['ws-chat-node'],
    ok: ['ws-chat-go'],
  },
  {
    kind: 'long',
    q: 'Provision infrastructure as code for a Kubernetes cluster on AWS that is not reachable from the internet, with autoscaling worker nodes and encrypted secrets.',
    best: ['tf-k8s'],
    ok: ['gha-ci'],
  },
  {
    kind: 'long',
    q: 'Our Python backend calls a slow pricing function with the same arguments thousands of times; results should be reused for five minutes and memory must stay bounded.',
    best: ['lru-py'],
    ok: ['lru-ts'],
  },
  {
    kind: 'long',
    q: 'The ops team wants to be woken up only when the application logs show something genuinely unusual, such as a new kind of error or a sudden burst, rather than on every warning.',
    best: ['log-anomaly-py'],
    ok: ['uptime-go'],
  },
  {
    kind: 'long',
    q: 'Implement semantic search for our knowledge base: store sentence embeddings in Postgres and return the closest passages for a question, filtered by product and language.',
    best: ['vector-search-py'],
  },
  {
    kind: 'long',
    q: 'We publish docker images from a repository containing many packages, and CI takes forever; only the packages touched by a pull request should be built and tested, in parallel, with caching.',
    best: ['gha-ci'],
  },
  {
    kind: 'long',
    q: 'Accountants photograph paper receipts with their phones; extract the shop name, the date, the total and each purchased item so they can be booked automatically.',
    best: ['ocr-receipts'],
  },
  {
    kind: 'long',
    q: 'Create a status page for our customers that shows whether our API endpoints respond and how quickly, and notifies the on-call engineer by e-mail when a check fails.',
    best: ['uptime-go'],
    ok: ['notify-node'],
  },
  {
    kind: 'long',
    q: 'My TypeScript API should be paid per request by AI agents in USDC: unpaid calls get a 402 with payment requirements, and paid calls carry a signed authorisation that is verified and settled.',
    best: ['x402-paywall'],
    ok: ['stripe-billing'],
  },
  {
    kind: 'long',
    q: 'Marketing needs an internal back office with a navigation sidebar, sortable and paginated tables of customers, a dark theme and a few charts, built with React.',
    best: ['admin-react'],
    ok: ['d3-charts'],
  },
  {
    kind: 'long',
    q: 'In an Express app written in TypeScript, protect the private routes: read the bearer token from the Authorization header, validate it against the identity provider keys and reject expired tokens.',
    best: ['jwt-express'],
    ok: ['jwt-go'],
  },
  {
    kind: 'long',
    q: 'Every product page of a few online shops should be visited with a real browser each day, and the names and current prices saved to a spreadsheet for comparison.',
    best: ['scraper-node'],
    ok: ['crawler-py'],
  },
  {
    kind: 'long',
    q: 'Our mobile app must notify users by SMS or push when their delivery status changes, respecting their preferences and not waking them up at night.',
    best: ['notify-node'],
    ok: ['email-py'],
  },
  {
    kind: 'long',
    q: 'Before we launch, measure how many requests per second our HTTP service sustains with hundreds of concurrent connections and what the 99th percentile latency is.',
    best: ['http-bench-rs'],
  },
  {
    kind: 'long',
    q: 'The disk on our Python batch servers keeps filling up with application logs; old files should be compressed after a day and deleted after a month without restarting the app.',
    best: ['log-rotate-py'],
  },
  {
    kind: 'long',
    q: 'Finance wants the quarterly numbers as a proper Excel file with several sheets, formatted currency columns and bold headers, generated from our Python reporting job.',
    best: ['xlsx-export-py'],
    ok: ['csv-py'],
  },
  {
    kind: 'long',
    q: 'Generate nicely formatted invoices as PDF documents from our orders, with tax lines, several currencies and a QR code for payment, in a Python service.',
    best: ['pdf-invoice-py'],
    ok: ['pdf-report-node'],
  },
  {
    kind: 'long',
    q: 'Ship new features gradually: enable them for five percent of users first, target specific customers, and let the apps pick up changes without redeploying.',
    best: ['feature-flags'],
  },
  {
    kind: 'long',
    q: 'Our multi-service GraphQL setup needs a single entry point that merges the schemas of each team, checks permissions per field and rejects overly expensive queries.',
    best: ['graphql-gateway'],
  },
];
