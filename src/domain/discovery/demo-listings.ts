/** Realistic demo listings for `npm run demo` (and the search tests' distractors). */
export interface DemoListing {
  title: string;
  description: string;
  techStack: string;
  price: number;
  promptSummary?: string;
}

export const DEMO_LISTINGS: DemoListing[] = [
  {
    title: 'Redis token-bucket rate limiter middleware',
    techStack: 'TypeScript, Express, Redis',
    price: 2.5,
    description:
      'Express middleware enforcing per-client request quotas with a token bucket stored in Redis. Atomic Lua script, sliding refill, Retry-After headers, and a memory fallback for tests.',
  },
  {
    title: 'Headless news crawler with robots.txt support',
    techStack: 'Python, Playwright, SQLite',
    price: 4,
    description:
      'Crawls news sites politely: honours robots.txt, per-domain delays, deduplicates articles by canonical URL and stores clean text and metadata in SQLite.',
  },
  {
    title: 'JWT login and refresh-token service',
    techStack: 'Go, PostgreSQL',
    price: 6,
    description:
      'Authentication microservice issuing short-lived JWT access tokens and rotating refresh tokens, bcrypt password hashing, account lockout and audit log tables.',
  },
  {
    title: 'CSV to JSON streaming converter CLI',
    techStack: 'Rust',
    price: 0.5,
    description:
      'Command-line tool converting large CSV files to JSON lines in constant memory, with type inference, header mapping and gzip input support.',
  },
  {
    title: 'React admin dashboard starter',
    techStack: 'TypeScript, React, Vite, Tailwind',
    price: 3,
    description:
      'Admin panel template with sidebar navigation, data tables with sorting and pagination, dark mode and chart widgets wired to a mock REST API.',
  },
  {
    title: 'Stripe subscription billing backend',
    techStack: 'Node.js, Fastify, PostgreSQL, Stripe',
    price: 9,
    description:
      'Subscription plans, checkout sessions, webhook verification, proration and invoice e-mails. Idempotent webhook handling with a processed-events table.',
  },
  {
    title: 'PDF invoice generator',
    techStack: 'Python, ReportLab',
    price: 1.5,
    description:
      'Generates branded PDF invoices from JSON orders: line items, taxes, multiple currencies, QR payment code and page numbering.',
  },
  {
    title: 'Image thumbnail resizing worker',
    techStack: 'Node.js, sharp, BullMQ, S3',
    price: 2,
    description:
      'Queue worker that downloads uploaded images from S3, creates WebP and JPEG thumbnails in several sizes, and writes them back with cache headers.',
  },
  {
    title: 'Discord moderation bot',
    techStack: 'TypeScript, discord.js',
    price: 3.5,
    description:
      'Bot that filters spam links, rate-limits message floods, assigns roles by reaction and logs moderation actions to a channel.',
  },
  {
    title: 'Prometheus metrics exporter for PostgreSQL',
    techStack: 'Go, Prometheus, PostgreSQL',
    price: 4.5,
    description:
      'Exports connection counts, replication lag, table bloat and slow query statistics as Prometheus metrics with Grafana dashboard JSON included.',
  },
  {
    title: 'Markdown static blog generator',
    techStack: 'Python, Jinja2',
    price: 1,
    description:
      'Builds a static site from Markdown posts with front matter, tags, RSS feed, syntax highlighting and incremental rebuilds.',
  },
  {
    title: 'WebSocket chat server with rooms',
    techStack: 'Node.js, ws, Redis',
    price: 3,
    description:
      'Realtime chat with rooms, presence, message history in Redis streams and horizontal scaling through Redis pub/sub.',
  },
  {
    title: 'Terraform module for a private Kubernetes cluster',
    techStack: 'Terraform, AWS, Kubernetes',
    price: 12,
    description:
      'Provisions an EKS cluster in private subnets with managed node groups, IRSA, cluster autoscaler and encrypted secrets.',
  },
  {
    title: 'Solidity ERC-20 vesting contract',
    techStack: 'Solidity, Foundry',
    price: 15,
    description:
      'Token vesting with cliff and linear release, revocable schedules, full Foundry test suite and deployment scripts.',
  },
  {
    title: 'Python weather forecast API client',
    techStack: 'Python, httpx',
    price: 0.8,
    description:
      'Typed async client for public weather forecast APIs with caching, retries and unit conversion helpers.',
  },
  {
    title: 'URL shortener with click analytics',
    techStack: 'Go, Redis, PostgreSQL',
    price: 2.5,
    description:
      'Short links with custom slugs, expiry, redirect counting per referrer and country, and a small JSON API.',
  },
  {
    title: 'Kanban todo board',
    techStack: 'TypeScript, Vue, Pinia',
    price: 2,
    description:
      'Drag-and-drop task board with columns, labels, due dates and local persistence; keyboard shortcuts included.',
  },
  {
    title: 'LRU cache with TTL for Node.js',
    techStack: 'TypeScript',
    price: 0.3,
    description:
      'Zero-dependency least-recently-used cache with per-entry time to live, size limits, hit ratio statistics and memoize helper.',
  },
  {
    title: 'FastAPI CRUD service template',
    techStack: 'Python, FastAPI, SQLAlchemy, PostgreSQL',
    price: 3,
    description:
      'REST service skeleton with async SQLAlchemy models, Alembic migrations, pagination, OpenAPI docs and pytest fixtures.',
  },
  {
    title: 'Email newsletter sender',
    techStack: 'Node.js, Nodemailer, SQLite',
    price: 1.8,
    description:
      'Sends templated newsletters over SMTP with subscriber lists, double opt-in, unsubscribe links and bounce handling.',
  },
  {
    title: 'Log file anomaly detector',
    techStack: 'Python, scikit-learn',
    price: 5,
    description:
      'Parses application logs, learns normal message patterns with an isolation forest and alerts on unusual spikes or new error templates.',
  },
  {
    title: 'Recursive descent JSON parser',
    techStack: 'C++',
    price: 1.2,
    description:
      'Small standards-compliant JSON parser and serializer with precise error positions, UTF-8 validation and a DOM API.',
  },
  {
    title: 'Cron job scheduler with retries',
    techStack: 'Go',
    price: 2.2,
    description:
      'In-process scheduler for cron expressions with jittered retries, overlap prevention, and Prometheus job metrics.',
  },
  {
    title: 'Vector similarity search service',
    techStack: 'Python, FastAPI, pgvector',
    price: 7,
    description:
      'Stores text embeddings in PostgreSQL with pgvector and answers nearest-neighbour queries with metadata filters over HTTP.',
  },
  {
    title: 'Terminal snake game',
    techStack: 'Rust, crossterm',
    price: 0.4,
    description:
      'Classic snake game for the terminal with levels, high scores saved to disk and colour themes.',
  },
  {
    title: 'GitHub Actions CI pipeline for monorepos',
    techStack: 'YAML, GitHub Actions, Docker',
    price: 2.8,
    description:
      'Reusable workflows that detect changed packages, cache dependencies, run tests in parallel and publish Docker images.',
  },
  {
    title: 'Telegram expense tracker bot',
    techStack: 'Python, aiogram, SQLite',
    price: 1.6,
    description:
      'Chat bot that records expenses from messages, categorises them and replies with monthly summaries and charts.',
  },
  {
    title: 'D3 interactive sales charts',
    techStack: 'JavaScript, D3',
    price: 2.4,
    description:
      'Reusable line, bar and stacked area chart components with tooltips, zoom and responsive resizing for dashboards.',
  },
  {
    title: 'S3 multipart upload helper',
    techStack: 'TypeScript, AWS SDK',
    price: 1.1,
    description:
      'Uploads large files to S3-compatible buckets in parallel parts with resumable progress and checksum verification.',
  },
  {
    title: 'Feature flag service',
    techStack: 'Node.js, Fastify, Redis',
    price: 4.2,
    description:
      'Percentage rollouts, user targeting rules, audit history and an SDK that caches flags with streaming updates.',
  },
  {
    title: 'OCR receipt scanner',
    techStack: 'Python, Tesseract, OpenCV',
    price: 3.9,
    description:
      'Extracts merchant, date, totals and line items from photographed receipts with deskewing and confidence scores.',
  },
  {
    title: 'GraphQL API gateway',
    techStack: 'TypeScript, Apollo, Node.js',
    price: 6.5,
    description:
      'Federated GraphQL gateway with schema stitching, per-field authorization, query cost limits and response caching.',
  },
  {
    title: 'Password strength checker library',
    techStack: 'JavaScript',
    price: 0.2,
    description:
      'Estimates password entropy, detects common patterns and leaked passwords from a bundled list, with localised feedback.',
  },
  {
    title: 'Uptime monitor with status page',
    techStack: 'Go, SQLite, HTML',
    price: 3.3,
    description:
      'Checks HTTP endpoints on a schedule, records latency, sends alerts by e-mail and webhook, and serves a public status page.',
  },
  {
    title: 'Sudoku solver and generator',
    techStack: 'Python',
    price: 0.3,
    description:
      'Backtracking solver with constraint propagation, puzzle generator with difficulty grading, and a small CLI.',
  },
  {
    title: 'x402 paywall middleware',
    techStack: 'TypeScript, Hono, viem',
    price: 5.5,
    description:
      'Protects API routes with x402 USDC micropayments: issues payment requirements, verifies EIP-3009 signatures and settles through a facilitator.',
  },
];
