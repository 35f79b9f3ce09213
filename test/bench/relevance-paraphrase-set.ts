import type { RelevanceListing, RelevanceQuery } from './relevance-set.js';

/**
 * The paraphrase relevance set (issue 30): a catalogue with close distractors (several rate
 * limiters, scrapers, sign-in services, notifiers and parsers, in different stacks) and queries
 * that describe a task in a buyer's own words. Written before any tuning on it, independently of
 * the ranking code.
 *
 * Rule of the set, enforced by test/unit/relevance-paraphrase-set.test.ts: no query shares a
 * content word (by stem, stop words and stack names aside) with the title or the tech stack of a
 * listing it wants first. A stack name is a constraint the buyer states, not a key term, so the
 * `stack` queries may name one. Descriptions are the seller's own prose and may share words.
 *
 * Families: `keyword` (a few words typed into a search box), `paraphrase` (the need as a sentence),
 * `stack` (the task plus the language or framework it must be in), `long` (an agent's task prompt).
 * The split into a tuning and a held-out half is relevance.ts `halfOf` (first bit of the SHA-256
 * of the query text): deterministic, and blind to the content.
 *
 * Rules for editing: add freely; never change a listing's text to make a query find it.
 */
export const PARAPHRASE_LISTINGS: RelevanceListing[] = [
  // ---- request limiting: protect your own server, in four stacks, plus the client-side pacer ----
  {
    key: 'rl-express',
    title: 'Token-bucket rate limiter middleware',
    techStack: 'TypeScript, Express, Redis',
    description:
      'Express middleware capping requests per client IP or API key with a token bucket kept in Redis. Answers 429 Too Many Requests with a Retry-After header; in-memory store for tests.',
  },
  {
    key: 'rl-fastapi',
    title: 'Sliding-window request quota for FastAPI',
    techStack: 'Python, FastAPI, Redis',
    description:
      'Dependency that enforces per-user request quotas over a sliding window, rejects excess calls with 429 and reports remaining allowance in response headers.',
  },
  {
    key: 'rl-go',
    title: 'Leaky-bucket throttling for net/http',
    techStack: 'Go',
    description:
      'HTTP handler wrapper that smooths bursts from each remote address with a leaky bucket, sheds load when a client exceeds its rate and exposes counters.',
  },
  {
    key: 'rl-rails',
    title: 'Abuse shield for Rails controllers',
    techStack: 'Ruby, Rails, Redis',
    description:
      'Rack middleware that blocks IPs sending too many requests, bans repeated login failures for a cooling-off period and keeps an allow-list for trusted hosts.',
  },
  {
    key: 'pacer-py',
    title: 'Outbound API call pacer',
    techStack: 'Python, httpx',
    description:
      'Client-side scheduler that spaces your own calls to third-party APIs so you stay under their published limits, with a shared budget across worker processes.',
  },
  // ---- scraping and crawling ----
  {
    key: 'scrape-shop-py',
    title: 'E-commerce product page scraper',
    techStack: 'Python, Playwright',
    description:
      'Headless browser script that visits shop pages, pulls product names, prices and stock status with CSS selectors and writes them to CSV.',
  },
  {
    key: 'crawl-go',
    title: 'Concurrent website crawler and sitemap builder',
    techStack: 'Go, colly',
    description:
      'Follows every internal link of a domain with a worker pool, respects robots.txt, reports broken links and emits sitemap.xml.',
  },
  {
    key: 'scrape-news-node',
    title: 'Headline extractor for news sites',
    techStack: 'Node.js, Cheerio',
    description:
      'Downloads front pages of configured news sites, parses headlines, authors and timestamps from the HTML and serves them as an RSS feed.',
  },
  {
    key: 'scrape-jobs-rs',
    title: 'Job board listing harvester',
    techStack: 'Rust, reqwest, SQLite',
    description:
      'Collects job postings from several boards on a schedule, normalises salary and location fields and stores new postings without duplicates.',
  },
  {
    key: 'pdf-tables-py',
    title: 'PDF table extractor',
    techStack: 'Python, pdfplumber',
    description:
      'Finds tables inside PDF reports and turns each into a DataFrame or CSV, handling merged cells and multi-page tables.',
  },
  // ---- sign-in and access ----
  {
    key: 'auth-jwt-go',
    title: 'JWT session issuer with refresh rotation',
    techStack: 'Go, PostgreSQL',
    description:
      'Authentication microservice issuing short-lived access tokens and rotating refresh tokens, bcrypt password hashing and account lockout.',
  },
  {
    key: 'auth-oauth-django',
    title: 'Google and GitHub OAuth sign-in for Django',
    techStack: 'Python, Django',
    description:
      'Adds social login buttons, links third-party identities to existing accounts and stores provider tokens encrypted.',
  },
  {
    key: 'auth-magic-express',
    title: 'Passwordless magic-link authentication',
    techStack: 'TypeScript, Express',
    description:
      'Users type their e-mail address and receive a one-time sign-in link; tokens expire after fifteen minutes and are single use.',
  },
  {
    key: 'auth-totp-rs',
    title: 'TOTP two-factor verification module',
    techStack: 'Rust',
    description:
      'Generates authenticator-app secrets and QR provisioning URIs, verifies six-digit codes with clock drift tolerance and issues backup codes.',
  },
  {
    key: 'auth-rbac-spring',
    title: 'Role-based permission checks for Spring Boot',
    techStack: 'Java, Spring',
    description:
      'Annotations and a policy table that decide which roles may call which endpoints, with an audit trail of denied access.',
  },
  {
    key: 'auth-apikey-fastify',
    title: 'API key issuing and verification service',
    techStack: 'Node.js, Fastify, PostgreSQL',
    description:
      'Creates hashed keys for customers, scopes them to operations, rotates and revokes them and records last use.',
  },
  // ---- prices, shopping and money ----
  {
    key: 'price-watch-py',
    title: 'Price drop watcher with e-mail alerts',
    techStack: 'Python, SQLite',
    description:
      'Tracks product pages from online shops you add to a wish list, checks them daily and e-mails you when the price falls below your target.',
  },
  {
    key: 'stock-alerts-node',
    title: 'Stock ticker threshold alerts',
    techStack: 'Node.js, WebSocket',
    description:
      'Streams equity quotes from a market data feed and sends a message when a share price crosses the levels you configured.',
  },
  {
    key: 'fx-convert-go',
    title: 'Currency exchange rate converter',
    techStack: 'Go',
    description:
      'Converts amounts between currencies with daily reference rates from the central bank, cached locally, with historical lookups.',
  },
  {
    key: 'checkout-next',
    title: 'Shopping cart and checkout for Next.js',
    techStack: 'TypeScript, Next.js, Stripe',
    description:
      'Cart state, promo codes, tax calculation and a hosted payment page for small online stores.',
  },
  {
    key: 'stripe-subs',
    title: 'Stripe subscription billing backend',
    techStack: 'Node.js, Fastify, PostgreSQL, Stripe',
    description:
      'Plans, trials, proration and webhook handling for recurring payments, with invoice e-mails and a customer portal link.',
  },
  {
    key: 'invoice-pdf-py',
    title: 'PDF invoice generator',
    techStack: 'Python, ReportLab',
    description:
      'Renders branded invoices from JSON orders: line items, taxes, several currencies and page numbering.',
  },
  {
    key: 'expense-bot-py',
    title: 'Telegram expense tracker bot',
    techStack: 'Python, aiogram, SQLite',
    description:
      'Log what you spend by chatting with a bot, categorise purchases and get monthly summaries and charts.',
  },
  {
    key: 'budget-react',
    title: 'Personal budget planner',
    techStack: 'TypeScript, React',
    description:
      'Monthly envelopes for income and spending, recurring bills, savings goals and a forecast of the account balance.',
  },
  // ---- logs, monitoring, errors ----
  {
    key: 'log-anomaly-py',
    title: 'Log stream outlier detector',
    techStack: 'Python, scikit-learn',
    description:
      'Parses application logs, learns normal message rates per template and flags unusual bursts or new error patterns with an isolation forest.',
  },
  {
    key: 'log-ship-go',
    title: 'Log forwarder to Elasticsearch',
    techStack: 'Go, Elasticsearch',
    description:
      'Tails log files, parses JSON lines, batches them and ships them to an Elasticsearch cluster with back-pressure and disk buffering.',
  },
  {
    key: 'uptime-go',
    title: 'Uptime checker with public status page',
    techStack: 'Go, SQLite, HTML',
    description:
      'Pings websites and APIs every minute, records response times and incidents and renders a status page for users.',
  },
  {
    key: 'redis-exporter-py',
    title: 'Redis metrics exporter for Prometheus',
    techStack: 'Python, Prometheus, Redis',
    description:
      'Publishes memory usage, keyspace hit rate, connected clients and replication offsets as Prometheus metrics.',
  },
  {
    key: 'error-sdk-js',
    title: 'Exception capture and grouping SDK',
    techStack: 'JavaScript',
    description:
      'Catches uncaught errors and promise rejections in the browser, groups them by stack trace fingerprint and posts them to your collector.',
  },
  {
    key: 'disk-alert-sh',
    title: 'Disk space watchdog',
    techStack: 'Bash',
    description:
      'Cron script that checks filesystem usage on each mount and posts a warning to a chat webhook above a threshold.',
  },
  // ---- notifications and messaging ----
  {
    key: 'webpush-node',
    title: 'Web push notification sender',
    techStack: 'Node.js, web-push',
    description:
      'Stores browser push subscriptions, signs VAPID payloads and delivers notifications to Chrome, Firefox and Safari.',
  },
  {
    key: 'sms-twilio-py',
    title: 'SMS gateway wrapper for Twilio',
    techStack: 'Python, Twilio',
    description:
      'Sends text messages with templates, delivery receipts, opt-out handling and per-country sender numbers.',
  },
  {
    key: 'email-digest-node',
    title: 'Daily e-mail digest builder',
    techStack: 'Node.js, Nodemailer',
    description:
      'Collects events during the day and mails each user a single summary in the morning, with unsubscribe links.',
  },
  {
    key: 'slack-alert-go',
    title: 'Slack webhook alerter',
    techStack: 'Go',
    description:
      'Posts formatted alerts to Slack channels from any script or service, with deduplication and quiet hours.',
  },
  {
    key: 'mobile-push-kt',
    title: 'Firebase Cloud Messaging client for Android',
    techStack: 'Kotlin, Firebase',
    description:
      'Registers devices, receives push messages in the background and shows notifications with actions on Android phones.',
  },
  // ---- configuration and secrets ----
  {
    key: 'env-config-ts',
    title: 'Typed environment variable loader',
    techStack: 'TypeScript, zod',
    description:
      'Reads process.env and .env files, validates every setting against a schema at startup and fails fast with a clear message.',
  },
  {
    key: 'flags-go',
    title: 'Feature toggle service with gradual rollout',
    techStack: 'Go, Redis',
    description:
      'Turns features on for a percentage of users or for named accounts, with an admin UI and instant kill switches.',
  },
  {
    key: 'secrets-rs',
    title: 'Encrypted secrets vault CLI',
    techStack: 'Rust',
    description:
      'Stores API tokens and passwords in an age-encrypted file per project and injects them into a command environment.',
  },
  {
    key: 'dotfiles-sh',
    title: 'Dotfiles sync tool',
    techStack: 'Bash, Git',
    description:
      'Keeps shell, editor and terminal settings in a git repository and symlinks them into place on every machine you use.',
  },
  {
    key: 'yaml-config-py',
    title: 'Layered YAML configuration reader',
    techStack: 'Python, PyYAML',
    description:
      'Merges default, environment and local YAML files with overrides from variables and validates the result.',
  },
  // ---- HTTP clients, retries, resilience ----
  {
    key: 'retry-http-py',
    title: 'Resilient HTTP client with exponential backoff',
    techStack: 'Python, httpx',
    description:
      'Wraps httpx so that failed requests are attempted again with jittered backoff on timeouts, connection errors and 5xx answers.',
  },
  {
    key: 'breaker-go',
    title: 'Circuit breaker for Go services',
    techStack: 'Go',
    description:
      'Stops calling a failing dependency after repeated errors, half-opens after a cool-down and reports state changes.',
  },
  {
    key: 'fetch-retry-ts',
    title: 'Fetch wrapper with automatic retries and timeouts',
    techStack: 'TypeScript',
    description:
      'Drop-in fetch replacement that retries idempotent requests with backoff, aborts slow ones and honours Retry-After.',
  },
  {
    key: 'webhook-relay-node',
    title: 'Webhook delivery queue with redelivery',
    techStack: 'Node.js, BullMQ, Redis',
    description:
      'Signs and delivers outgoing webhooks to customer endpoints, redelivers on failure with backoff and shows a delivery log.',
  },
  // ---- data formats and parsing ----
  {
    key: 'csv-reader-py',
    title: 'Streaming CSV reader with type inference',
    techStack: 'Python',
    description:
      'Reads large comma-separated files row by row in constant memory, guesses column types, dates and encodings and yields dictionaries.',
  },
  {
    key: 'json-parser-cpp',
    title: 'Recursive descent JSON parser',
    techStack: 'C++',
    description:
      'Header-only JSON parser and serializer with precise error positions, UTF-8 validation and a DOM API.',
  },
  {
    key: 'parquet-rs',
    title: 'CSV to Parquet converter',
    techStack: 'Rust, Arrow',
    description:
      'Command-line tool that converts comma-separated exports to compressed columnar Parquet files with schema inference.',
  },
  {
    key: 'xlsx-node',
    title: 'Excel workbook generator',
    techStack: 'Node.js',
    description:
      'Builds .xlsx spreadsheets with formulas, styles, frozen headers and several sheets from arrays of objects.',
  },
  {
    key: 'yaml-lint-go',
    title: 'YAML schema validator',
    techStack: 'Go',
    description:
      'Checks YAML documents against a JSON Schema and reports every violation with file, line and column.',
  },
  {
    key: 'xml-java',
    title: 'XML to JSON mapper',
    techStack: 'Java',
    description:
      'Maps XML documents to JSON objects with configurable handling of attributes, namespaces and repeated elements.',
  },
  // ---- images, media, documents ----
  {
    key: 'thumbs-node',
    title: 'Image thumbnail generator',
    techStack: 'Node.js, sharp, S3',
    description:
      'Queue worker that downloads uploaded pictures, creates WebP and JPEG previews in several sizes and writes them back to S3.',
  },
  {
    key: 'img-optimize-py',
    title: 'Lossless PNG and JPEG optimizer',
    techStack: 'Python, Pillow',
    description:
      'Shrinks image files without visible quality loss by stripping metadata, re-encoding and choosing better compression settings.',
  },
  {
    key: 'video-transcode-go',
    title: 'Video transcoding worker with FFmpeg',
    techStack: 'Go, FFmpeg',
    description:
      'Converts uploaded videos to HLS streams in several resolutions and generates poster frames.',
  },
  {
    key: 'ocr-receipts-py',
    title: 'Receipt OCR scanner',
    techStack: 'Python, Tesseract, OpenCV',
    description:
      'Reads store receipts from phone photos: deskews the picture, recognises the text and extracts merchant, date and total.',
  },
  {
    key: 'bg-remove-py',
    title: 'Photo background remover',
    techStack: 'Python, PyTorch',
    description:
      'Segments the subject of a picture with a small neural network and outputs a transparent PNG cut-out.',
  },
  {
    key: 'pdf-merge-rs',
    title: 'PDF merge and split CLI',
    techStack: 'Rust',
    description:
      'Joins several PDF documents into one, extracts page ranges and rotates pages from the command line.',
  },
  {
    key: 'speech-text-py',
    title: 'Speech-to-text transcription CLI',
    techStack: 'Python, Whisper',
    description:
      'Turns audio and video recordings into timestamped transcripts and subtitle files, offline.',
  },
  // ---- search and matching ----
  {
    key: 'fuzzy-search-js',
    title: 'Typo-tolerant in-memory search',
    techStack: 'JavaScript',
    description:
      'Client-side index over an array of records that finds results even when the user misspells words, with highlighting.',
  },
  {
    key: 'dedupe-py',
    title: 'Record deduplication with fuzzy matching',
    techStack: 'Python, pandas',
    description:
      'Finds rows that describe the same customer or company despite spelling differences and merges them.',
  },
  {
    key: 'vector-search-py',
    title: 'Embedding similarity search service',
    techStack: 'Python, FastAPI, pgvector',
    description:
      'Stores text embeddings in PostgreSQL and answers nearest-neighbour queries over an HTTP API.',
  },
  // ---- jobs and scheduling ----
  {
    key: 'cron-go',
    title: 'Cron job scheduler with retries',
    techStack: 'Go',
    description:
      'Runs commands on cron expressions with timeouts, retry policies, overlap prevention and a history of runs.',
  },
  {
    key: 'queue-bull-node',
    title: 'Background job queue with dashboard',
    techStack: 'Node.js, BullMQ, Redis',
    description:
      'Moves slow work out of request handlers into workers with priorities, delays, progress reporting and a web dashboard.',
  },
  {
    key: 'celery-py',
    title: 'Distributed task runner template',
    techStack: 'Python, Celery, RabbitMQ',
    description:
      'Project skeleton for offloading heavy computations to a pool of machines with result storage and periodic tasks.',
  },
  // ---- chat and bots ----
  {
    key: 'discord-mod-ts',
    title: 'Discord moderation bot',
    techStack: 'TypeScript, discord.js',
    description:
      'Filters spam links, mutes message floods, assigns roles by reaction and logs moderation actions.',
  },
  {
    key: 'faq-bot-py',
    title: 'Customer support chatbot with FAQ retrieval',
    techStack: 'Python, FastAPI',
    description:
      'Answers customer questions from your help-centre articles and hands the conversation to a human when unsure.',
  },
  {
    key: 'ws-chat-node',
    title: 'WebSocket chat server with rooms',
    techStack: 'Node.js, ws, Redis',
    description:
      'Realtime chat with rooms, presence, message history and horizontal scaling through Redis pub/sub.',
  },
  // ---- operations ----
  {
    key: 'pg-backup-sh',
    title: 'Scheduled PostgreSQL backup to S3',
    techStack: 'Bash, PostgreSQL, AWS',
    description:
      'Nightly pg_dump, compression, encryption and upload with retention of thirty daily and twelve monthly copies.',
  },
  {
    key: 'tf-k8s',
    title: 'Terraform module for a private Kubernetes cluster',
    techStack: 'Terraform, AWS, Kubernetes',
    description:
      'Provisions a private EKS cluster with managed node groups, autoscaling, IAM roles and network policies.',
  },
  {
    key: 'ci-actions',
    title: 'GitHub Actions pipeline for monorepos',
    techStack: 'YAML, GitHub Actions, Docker',
    description:
      'Runs tests and builds only for changed packages, caches dependencies and publishes container images.',
  },
  {
    key: 'migrate-go',
    title: 'SQL schema migration runner',
    techStack: 'Go, PostgreSQL',
    description:
      'Applies versioned up and down scripts in order inside transactions, with a lock so two deploys never race.',
  },
  {
    key: 'load-test-rs',
    title: 'HTTP load testing tool',
    techStack: 'Rust, Tokio',
    description:
      'Fires concurrent requests at an endpoint and reports latency percentiles, throughput and error counts.',
  },
  {
    key: 'file-watch-go',
    title: 'Live reload file watcher',
    techStack: 'Go',
    description:
      'Watches source directories and restarts your program or rebuilds it whenever a file is saved.',
  },
  // ---- front end ----
  {
    key: 'admin-react',
    title: 'React admin dashboard starter',
    techStack: 'TypeScript, React, Vite, Tailwind',
    description:
      'Admin panel template with sidebar navigation, sortable data tables, dark mode and chart widgets.',
  },
  {
    key: 'forms-ts',
    title: 'Form validation library',
    techStack: 'TypeScript',
    description:
      'Declarative rules for input fields with async checks, error messages per field and framework adapters.',
  },
  {
    key: 'i18n-js',
    title: 'Internationalization string catalog',
    techStack: 'JavaScript',
    description:
      'Loads translated messages per locale, handles plurals and number formats and extracts untranslated strings.',
  },
  {
    key: 'charts-d3',
    title: 'D3 interactive sales charts',
    techStack: 'JavaScript, D3',
    description:
      'Zoomable line and bar charts of revenue over time with tooltips, legends and CSV export.',
  },
  {
    key: 'landing-vue',
    title: 'Vue landing page template',
    techStack: 'Vue, Tailwind',
    description:
      'Responsive marketing page with hero section, pricing table, testimonials and a newsletter form.',
  },
  // ---- assorted tools ----
  {
    key: 'url-short-go',
    title: 'Link shortener with click statistics',
    techStack: 'Go, Redis, PostgreSQL',
    description:
      'Creates short codes for long URLs, redirects visitors and counts clicks by country and referrer.',
  },
  {
    key: 'blog-md-py',
    title: 'Markdown static blog generator',
    techStack: 'Python, Jinja2',
    description:
      'Builds a static site from Markdown posts with tags, RSS feed, syntax highlighting and incremental rebuilds.',
  },
  {
    key: 'pwd-strength-js',
    title: 'Password strength estimator',
    techStack: 'JavaScript',
    description:
      'Scores how guessable a password is from dictionary words, keyboard patterns and dates, with feedback for users.',
  },
  {
    key: 'spam-filter-py',
    title: 'Comment spam classifier',
    techStack: 'Python, scikit-learn',
    description:
      'Naive Bayes model that flags junk comments on blogs and forums, trainable on your own moderated data.',
  },
  {
    key: 'geoip-go',
    title: 'IP geolocation lookup',
    techStack: 'Go',
    description:
      'Resolves IP addresses to country, city and ASN from an embedded database, refreshed monthly.',
  },
  {
    key: 'qr-py',
    title: 'QR code generator',
    techStack: 'Python',
    description:
      'Creates QR codes for URLs, Wi-Fi credentials and contact cards as PNG or SVG, with logos in the middle.',
  },
  {
    key: 'weather-py',
    title: 'Weather forecast API client',
    techStack: 'Python, httpx',
    description:
      'Fetches hourly and seven-day forecasts for any city, with caching and unit conversion.',
  },
  {
    key: 'sql-format-ts',
    title: 'SQL query formatter',
    techStack: 'TypeScript',
    description:
      'Pretty-prints SQL statements for several dialects with consistent indentation and keyword case.',
  },
  {
    key: 'sentiment-py',
    title: 'Product review sentiment scorer',
    techStack: 'Python, transformers',
    description:
      'Rates customer reviews as positive, negative or neutral and summarises the main complaints per product.',
  },
  {
    key: 'calendar-sync-py',
    title: 'Google Calendar and Outlook sync',
    techStack: 'Python',
    description:
      'Two-way synchronisation of events between Google and Microsoft calendars, with conflict handling.',
  },
  {
    key: 'snake-rs',
    title: 'Terminal snake game',
    techStack: 'Rust, crossterm',
    description: 'Classic snake in the terminal with levels, high scores and colour themes.',
  },
  {
    key: 'sudoku-py',
    title: 'Sudoku solver and generator',
    techStack: 'Python',
    description: 'Solves puzzles by constraint propagation and generates new ones by difficulty.',
  },
  {
    key: 'erc20-vesting',
    title: 'Solidity ERC-20 vesting contract',
    techStack: 'Solidity, Foundry',
    description:
      'Releases tokens to team members on a cliff and linear schedule, revocable by the owner.',
  },
  {
    key: 'inventory-go',
    title: 'Warehouse stock level tracker',
    techStack: 'Go, PostgreSQL',
    description:
      'Keeps quantities per item and location, records movements and warns when an item runs low.',
  },
];

export const PARAPHRASE_QUERIES: RelevanceQuery[] = [
  // ---- keyword: a few words, the buyer's own ----
  {
    kind: 'keyword',
    q: 'throttle abusive clients',
    best: ['rl-express', 'rl-fastapi', 'rl-go', 'rl-rails'],
  },
  {
    kind: 'keyword',
    q: 'harvest item costs from webshops',
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  { kind: 'keyword', q: 'social login', best: ['auth-oauth-django'] },
  { kind: 'keyword', q: '2fa codes', best: ['auth-totp-rs'] },
  { kind: 'keyword', q: 'text message alerts to phones', best: ['sms-twilio-py'] },
  { kind: 'keyword', q: 'desktop popups from my site', best: ['webpush-node'] },
  { kind: 'keyword', q: 'settings from env vars', best: ['env-config-ts'], ok: ['yaml-config-py'] },
  { kind: 'keyword', q: 'reattempt failed requests', best: ['retry-http-py', 'fetch-retry-ts'] },
  { kind: 'keyword', q: 'spreadsheet export', best: ['xlsx-node'] },
  { kind: 'keyword', q: 'compress photos', best: ['img-optimize-py'] },
  { kind: 'keyword', q: 'audio transcripts', best: ['speech-text-py'] },
  { kind: 'keyword', q: 'misspelling forgiving lookup', best: ['fuzzy-search-js'] },
  { kind: 'keyword', q: 'merge duplicate customers', best: ['dedupe-py'] },
  { kind: 'keyword', q: 'database dumps offsite', best: ['pg-backup-sh'] },
  { kind: 'keyword', q: 'translations plurals locales', best: ['i18n-js'] },
  { kind: 'keyword', q: 'short urls', best: ['url-short-go'] },
  { kind: 'keyword', q: 'junk forum post detection', best: ['spam-filter-py'] },
  { kind: 'keyword', q: 'which country is this visitor address from', best: ['geoip-go'] },
  { kind: 'keyword', q: 'benchmark my api under heavy traffic', best: ['load-test-rs'] },
  { kind: 'keyword', q: 'restart on save', best: ['file-watch-go'] },
  { kind: 'keyword', q: 'staged release to a share of users', best: ['flags-go'] },
  { kind: 'keyword', q: 'recurring payments', best: ['stripe-subs'] },
  { kind: 'keyword', q: 'money conversion between dollars and euros', best: ['fx-convert-go'] },
  { kind: 'keyword', q: 'erase the backdrop behind people in pictures', best: ['bg-remove-py'] },
  { kind: 'keyword', q: 'pretty print database statements', best: ['sql-format-ts'] },
  { kind: 'keyword', q: 'fail fast when a dependency is down', best: ['breaker-go'] },
  { kind: 'keyword', q: 'storage almost full warning', best: ['disk-alert-sh'] },

  // ---- paraphrase: the need as a sentence, in the buyer's words ----
  {
    kind: 'paraphrase',
    q: 'stop clients from hammering my node api',
    best: ['rl-express'],
    ok: ['rl-fastapi', 'rl-go', 'rl-rails'],
  },
  {
    kind: 'paraphrase',
    q: 'tell me when something I want to buy gets cheaper',
    best: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: 'notice weird spikes in what my servers print',
    best: ['log-anomaly-py'],
  },
  {
    kind: 'paraphrase',
    q: 'keep my scripts from hitting a partner service more often than they allow',
    best: ['pacer-py'],
  },
  {
    kind: 'paraphrase',
    q: 'grab the cost of items from online stores automatically',
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: 'visit every page of my domain and list dead links',
    best: ['crawl-go'],
  },
  {
    kind: 'paraphrase',
    q: 'pull the top stories from newspaper homepages into a feed',
    best: ['scrape-news-node'],
  },
  {
    kind: 'paraphrase',
    q: 'collect vacancies posted on recruiting sites every night',
    best: ['scrape-jobs-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'get the grids of numbers out of quarterly report documents',
    best: ['pdf-tables-py'],
  },
  {
    kind: 'paraphrase',
    q: 'let people log in with accounts they already have elsewhere',
    best: ['auth-oauth-django'],
  },
  {
    kind: 'paraphrase',
    q: 'users sign in by clicking something we mail them, no passwords',
    best: ['auth-magic-express'],
  },
  {
    kind: 'paraphrase',
    q: 'ask for a six digit code from an authenticator app after the password',
    best: ['auth-totp-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'only admins may call some endpoints, others get refused',
    best: ['auth-rbac-spring'],
  },
  {
    kind: 'paraphrase',
    q: 'hand out secret tokens to customers so they can call our platform',
    best: ['auth-apikey-fastify'],
  },
  {
    kind: 'paraphrase',
    q: 'message me when a share crosses a certain value',
    best: ['stock-alerts-node'],
  },
  {
    kind: 'paraphrase',
    q: 'turn dollars into euros at today’s value',
    best: ['fx-convert-go'],
  },
  {
    kind: 'paraphrase',
    q: 'let visitors put goods in a basket and pay',
    best: ['checkout-next'],
  },
  {
    kind: 'paraphrase',
    q: 'charge customers every month automatically',
    best: ['stripe-subs'],
  },
  {
    kind: 'paraphrase',
    q: 'make bills for my clients that I can print',
    best: ['invoice-pdf-py'],
  },
  {
    kind: 'paraphrase',
    q: 'write down what I spend by texting a chat assistant',
    best: ['expense-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: 'plan my household money for the month',
    best: ['budget-react'],
    ok: ['expense-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: 'send lines from my server output files to a search cluster',
    best: ['log-ship-go'],
  },
  {
    kind: 'paraphrase',
    q: 'know when my website goes down and tell visitors about the outage',
    best: ['uptime-go'],
  },
  {
    kind: 'paraphrase',
    q: 'collect crashes from visitors’ browsers and bundle similar ones',
    best: ['error-sdk-js'],
  },
  {
    kind: 'paraphrase',
    q: 'warn me before the server’s storage fills up',
    best: ['disk-alert-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'pop up a message on the desktop of people who visited my site',
    best: ['webpush-node'],
  },
  {
    kind: 'paraphrase',
    q: 'text customers on their phones when the order ships',
    best: ['sms-twilio-py'],
  },
  {
    kind: 'paraphrase',
    q: 'one roundup message per user each morning instead of many',
    best: ['email-digest-node'],
  },
  {
    kind: 'paraphrase',
    q: 'post a warning into our team chat from any cron script',
    best: ['slack-alert-go'],
    ok: ['disk-alert-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'show alerts on phones when the app is closed',
    best: ['mobile-push-kt'],
  },
  {
    kind: 'paraphrase',
    q: 'crash at boot if a required setting is missing',
    best: ['env-config-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'switch new functionality on for ten percent of users first',
    best: ['flags-go'],
  },
  {
    kind: 'paraphrase',
    q: 'keep passwords and tokens out of my repo but available to commands',
    best: ['secrets-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'same editor and terminal preferences on all my laptops',
    best: ['dotfiles-sh'],
  },

  {
    kind: 'paraphrase',
    q: 'stop contacting a broken downstream dependency for a while',
    best: ['breaker-go'],
  },
  {
    kind: 'paraphrase',
    q: 'notify partner systems over http when events happen and try again if they fail',
    best: ['webhook-relay-node'],
  },
  {
    kind: 'paraphrase',
    q: 'walk through a huge comma separated file without loading it all in memory',
    best: ['csv-reader-py'],
    ok: ['parquet-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'turn tabular exports into compact columnar files for analytics',
    best: ['parquet-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'produce office sheets with formulas from my data',
    best: ['xlsx-node'],
  },
  {
    kind: 'paraphrase',
    q: 'check config documents against rules and point at the bad line',
    best: ['yaml-lint-go'],
  },
  {
    kind: 'paraphrase',
    q: 'make small previews of uploaded pictures',
    best: ['thumbs-node'],
  },
  {
    kind: 'paraphrase',
    q: 'make my pictures smaller in bytes without making them look worse',
    best: ['img-optimize-py'],
  },
  {
    kind: 'paraphrase',
    q: 'prepare uploaded movies for adaptive streaming',
    best: ['video-transcode-go'],
  },
  {
    kind: 'paraphrase',
    q: 'read the total from a photo of a shopping slip',
    best: ['ocr-receipts-py'],
  },
  {
    kind: 'paraphrase',
    q: 'cut people out of pictures onto a transparent layer',
    best: ['bg-remove-py'],
  },
  {
    kind: 'paraphrase',
    q: 'combine several documents into a single file and pull out pages',
    best: ['pdf-merge-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'write down what is said in my podcast episodes',
    best: ['speech-text-py'],
  },
  {
    kind: 'paraphrase',
    q: 'find matches even when the user types words wrong',
    best: ['fuzzy-search-js'],
  },
  {
    kind: 'paraphrase',
    q: 'find rows about the same company spelled differently',
    best: ['dedupe-py'],
  },
  {
    kind: 'paraphrase',
    q: 'find texts that mean something close to a question',
    best: ['vector-search-py'],
  },
  {
    kind: 'paraphrase',
    q: 'run a command every night at two and try again if it fails',
    best: ['cron-go'],
  },
  {
    kind: 'paraphrase',
    q: 'move slow work out of my web requests',
    best: ['queue-bull-node', 'celery-py'],
  },
  {
    kind: 'paraphrase',
    q: 'kick out people posting junk in my gaming community server',
    best: ['discord-mod-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'answer buyer questions from our help articles automatically',
    best: ['faq-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: 'people talk to each other live in separate channels',
    best: ['ws-chat-node'],
  },
  {
    kind: 'paraphrase',
    q: 'copy my database to cloud storage every night',
    best: ['pg-backup-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'apply table changes to production in order, safely',
    best: ['migrate-go'],
  },
  {
    kind: 'paraphrase',
    q: 'see how many users my endpoint survives at once',
    best: ['load-test-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'show users error messages next to the fields they filled wrong',
    best: ['forms-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'make my app speak several languages',
    best: ['i18n-js'],
  },
  {
    kind: 'paraphrase',
    q: 'a marketing site with prices and testimonials',
    best: ['landing-vue'],
  },
  {
    kind: 'paraphrase',
    q: 'tell users how easy their chosen secret is to guess',
    best: ['pwd-strength-js'],
  },
  {
    kind: 'paraphrase',
    q: 'know which country a visitor is in from their address',
    best: ['geoip-go'],
  },
  {
    kind: 'paraphrase',
    q: 'a square barcode people scan with their phone to join the wifi',
    best: ['qr-py'],
  },
  {
    kind: 'paraphrase',
    q: 'will it rain tomorrow in my town',
    best: ['weather-py'],
  },
  {
    kind: 'paraphrase',
    q: 'figure out if shoppers liked what they bought from their comments',
    best: ['sentiment-py'],
  },
  {
    kind: 'paraphrase',
    q: 'keep my work and personal appointments in step',
    best: ['calendar-sync-py'],
  },
  {
    kind: 'paraphrase',
    q: 'pay out team tokens gradually over years on chain',
    best: ['erc20-vesting'],
  },
  {
    kind: 'paraphrase',
    q: 'know how many boxes of each product are left on the shelves',
    best: ['inventory-go'],
  },
  {
    kind: 'paraphrase',
    q: 'something fun to play in the console during builds',
    best: ['snake-rs'],
  },

  // ---- stack: the task in the buyer's words plus the stack it must be in ----

  {
    kind: 'stack',
    q: 'stop bots flooding my python backend',
    best: ['rl-fastapi'],
    ok: ['rl-express', 'rl-go', 'rl-rails'],
  },
  {
    kind: 'stack',
    q: 'cap how often each caller can hit my go handlers',
    best: ['rl-go'],
    ok: ['rl-express', 'rl-fastapi', 'rl-rails'],
  },
  {
    kind: 'stack',
    q: 'block brute force sign in attempts in ruby',
    best: ['rl-rails'],
    ok: ['auth-jwt-go'],
  },
  {
    kind: 'stack',
    q: 'node script that grabs top stories from newspapers',
    best: ['scrape-news-node'],
  },
  {
    kind: 'stack',
    q: 'python bot that collects item costs from webshops',
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  {
    kind: 'stack',
    q: 'spider a whole site in golang',
    best: ['crawl-go'],
  },
  {
    kind: 'stack',
    q: 'rust tool gathering vacancies from hiring portals',
    best: ['scrape-jobs-rs'],
  },
  {
    kind: 'stack',
    q: 'go service that logs users in and keeps them logged in',
    best: ['auth-jwt-go'],
  },
  {
    kind: 'stack',
    q: 'express sign in via emailed url',
    best: ['auth-magic-express'],
  },
  {
    kind: 'stack',
    q: 'java access control by user group',
    best: ['auth-rbac-spring'],
  },
  {
    kind: 'stack',
    q: 'python notify me when a wishlist item is discounted',
    best: ['price-watch-py'],
  },
  {
    kind: 'stack',
    q: 'typescript http calls that try again on failure',
    best: ['fetch-retry-ts'],
    ok: ['retry-http-py'],
  },
  {
    kind: 'stack',
    q: 'python web calls that try again on failure',
    best: ['retry-http-py'],
    ok: ['fetch-retry-ts'],
  },
  {
    kind: 'stack',
    q: 'c++ library to decode api payloads',
    best: ['json-parser-cpp'],
  },
  {
    kind: 'stack',
    q: 'node alerts that appear in browsers',
    best: ['webpush-node'],
    ok: ['mobile-push-kt'],
  },
  {
    kind: 'stack',
    q: 'kotlin phone notifications',
    best: ['mobile-push-kt'],
  },
  {
    kind: 'stack',
    q: 'python settings files with overrides',
    best: ['yaml-config-py'],
    ok: ['env-config-ts'],
  },
  {
    kind: 'stack',
    q: 'go shrink uploaded clips for streaming',
    best: ['video-transcode-go'],
  },
  {
    kind: 'stack',
    q: 'python read text in photos of shopping slips',
    best: ['ocr-receipts-py'],
  },
  {
    kind: 'stack',
    q: 'react app to plan spending',
    best: ['budget-react'],
    ok: ['admin-react'],
  },
  {
    kind: 'stack',
    q: 'react app',
    best: ['admin-react', 'budget-react'],
  },
  {
    kind: 'stack',
    q: 'bash nightly postgres dump',
    best: ['pg-backup-sh'],
  },
  {
    kind: 'stack',
    q: 'go database upgrades with versioned scripts',
    best: ['migrate-go'],
  },
  {
    kind: 'stack',
    q: 'python classify unwanted forum posts',
    best: ['spam-filter-py'],
  },

  // ---- long: an agent's task prompt ----
  {
    kind: 'long',
    q: 'Our public Node API gets overwhelmed when a single customer fires thousands of calls a second. I need something that caps each caller and answers with a polite error telling them when to come back.',
    best: ['rl-express'],
    ok: ['rl-fastapi', 'rl-go', 'rl-rails'],
  },
  {
    kind: 'long',
    q: 'My nightly Python jobs hit a partner’s service that only allows sixty hits a minute; spread our traffic out so we never get blocked, even with several workers.',
    best: ['pacer-py'],
  },
  {
    kind: 'long',
    q: 'I keep an eye on a few gadgets on different shopping websites; every day I want the program to look at them and email me once they fall under what I am willing to pay.',
    best: ['price-watch-py'],
  },
  {
    kind: 'long',
    q: 'Our services print thousands of lines a minute. When something unusual starts happening, like a sudden burst of a message we rarely see, the on-call engineer should hear about it.',
    best: ['log-anomaly-py'],
  },
  {
    kind: 'long',
    q: 'We want customers to come in with the accounts they already have at big platforms, tied to the profile they made with us earlier, in our Django monolith.',
    best: ['auth-oauth-django'],
  },
  {
    kind: 'long',
    q: 'Marketing wants a list of everything competitors sell with the current cost and whether it is available, refreshed by visiting their catalogues in a real browser.',
    best: ['scrape-shop-py'],
  },
  {
    kind: 'long',
    q: 'When the payment provider or a partner API times out or answers with a 503, our code should wait a little longer each time and try the same call again a few times before giving up.',
    best: ['retry-http-py', 'fetch-retry-ts'],
    ok: ['breaker-go'],
  },
  {
    kind: 'long',
    q: 'We get monthly statements as documents with figures laid out in grids across several pages and need those numbers in a dataframe for the finance team.',
    best: ['pdf-tables-py'],
  },
  {
    kind: 'long',
    q: 'Users upload holiday snapshots of several megabytes; before we store them we want tiny previews in a couple of sizes for the gallery grid.',
    best: ['thumbs-node'],
  },
  {
    kind: 'long',
    q: 'Whenever an order changes state we must call the merchant’s endpoint, sign the body so they can trust it, and keep trying with pauses if their server is unreachable.',
    best: ['webhook-relay-node'],
  },
  {
    kind: 'long',
    q: 'Before the service starts it should read all its options from the process settings, check their kinds and refuse to boot with a readable explanation if something is off.',
    best: ['env-config-ts'],
  },
  {
    kind: 'long',
    q: 'We record interviews and want written versions with times for each sentence, plus caption files for the video edit, without sending audio to a cloud service.',
    best: ['speech-text-py'],
  },
  {
    kind: 'long',
    q: 'The CRM has the same client entered three times with small spelling differences; find those groups and collapse each into one entry.',
    best: ['dedupe-py'],
  },
  {
    kind: 'long',
    q: 'Our signup handler sends a welcome mail and resizes an avatar inline and takes seconds; push that work somewhere else so the response comes back at once, and let me watch its progress.',
    best: ['queue-bull-node'],
    ok: ['celery-py'],
  },
  {
    kind: 'long',
    q: 'Agents on our team should be able to find which help articles answer a question even when the wording differs, by meaning rather than exact words, behind a small web backend.',
    best: ['vector-search-py'],
    ok: ['faq-bot-py'],
  },
  {
    kind: 'long',
    q: 'The staging box ran out of room twice last month. Put something on cron that looks at each mounted volume and pings our chat room when usage gets high.',
    best: ['disk-alert-sh'],
  },
  {
    kind: 'long',
    q: 'We sell in several countries and need to show each visitor the amount in their own money, using the official daily figures and keeping older days for reports.',
    best: ['fx-convert-go'],
  },
  {
    kind: 'long',
    q: 'I maintain a store front in Next and want visitors to collect items, apply a discount voucher and be sent to a hosted page to settle the bill.',
    best: ['checkout-next'],
  },
  {
    kind: 'long',
    q: 'Before each release we want to know how the endpoint holds up when hundreds of simultaneous users hit it, with the slowest percentiles printed at the end.',
    best: ['load-test-rs'],
  },
  {
    kind: 'long',
    q: 'Users complain that they cannot find products when they misspell a name in the shop’s lookup box; it all runs in the browser over a few thousand entries.',
    best: ['fuzzy-search-js'],
  },
  {
    kind: 'long',
    q: 'After someone enters the password, ask for the rotating number from Google Authenticator or similar, and give them one-off fallback numbers in case they lose the phone.',
    best: ['auth-totp-rs'],
  },
  {
    kind: 'long',
    q: 'Our team lost a week of data last year. I want the production database copied every night, encrypted, put in a bucket, and old copies pruned automatically.',
    best: ['pg-backup-sh'],
  },
];
