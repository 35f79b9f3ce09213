import type { RelevanceQuery } from './relevance-set.js';

/**
 * The fresh relevance set (issue 30, second reading): queries over the paraphrase set's catalogue
 * (relevance-paraphrase-set.ts PARAPHRASE_LISTINGS, imported, not copied), written blind: without
 * reading the lexicon, the ranking code or the other sets' queries, and never tuned on. Every query
 * is held out: `npm run bench -- relevance` reads it as "fresh set (never tuned on)", the tuning
 * tool (relevance-tune.ts) never sees it, and BENCH_RELEVANCE_HALF=tuning hides it entirely.
 *
 * Same rule as the paraphrase set, enforced by test/unit/relevance-paraphrase-set.test.ts: no query
 * shares a content word (by stem; stop words and stack names aside) with the title or the tech stack
 * of a listing it wants first. Families as there: `keyword`, `paraphrase`, `stack`, `long`.
 *
 * Rules for editing: a query changed or added after the set has been read once is no longer blind;
 * write a new set instead of editing this one to move its figures.
 */
export const FRESH_QUERIES: RelevanceQuery[] = [
  // ---- keyword: a few words typed into a search box ----
  {
    kind: 'keyword',
    q: 'too many hits per visitor 429',
    best: ['rl-express', 'rl-fastapi', 'rl-go'],
    ok: ['rl-rails'],
  },
  {
    kind: 'keyword',
    q: 'grab shop item costs to spreadsheet',
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  { kind: 'keyword', q: '2fa authenticator app codes', best: ['auth-totp-rs'] },
  { kind: 'keyword', q: 'login by emailed one-time url', best: ['auth-magic-express'] },
  { kind: 'keyword', q: 'tail files ship to search cluster', best: ['log-ship-go'] },
  { kind: 'keyword', q: 'cut out subject transparent png', best: ['bg-remove-py'] },
  { kind: 'keyword', q: 'shrink jpg size', best: ['img-optimize-py'], ok: ['thumbs-node'] },
  { kind: 'keyword', q: 'audio to subtitles', best: ['speech-text-py'] },
  { kind: 'keyword', q: 'tiny urls with visit counts', best: ['url-short-go'] },
  { kind: 'keyword', q: 'xlsx spreadsheet from objects', best: ['xlsx-node'] },
  { kind: 'keyword', q: 'dark launch kill switch per account', best: ['flags-go'] },
  { kind: 'keyword', q: 'nightly database dump offsite', best: ['pg-backup-sh'] },
  { kind: 'keyword', q: '9x9 number puzzle', best: ['sudoku-py'] },
  { kind: 'keyword', q: 'plural rules per locale', best: ['i18n-js'] },
  {
    kind: 'keyword',
    q: 'naive bayes junk filter for forum posts',
    best: ['spam-filter-py'],
    ok: ['discord-mod-ts'],
  },
  { kind: 'keyword', q: 'address to country city asn', best: ['geoip-go'] },
  { kind: 'keyword', q: 'hls adaptive streaming encode', best: ['video-transcode-go'] },

  // ---- paraphrase: the need as a sentence, in the buyer's own words ----
  {
    kind: 'paraphrase',
    q: 'my site falls over when a newsletter goes out and everyone clicks at once',
    best: ['rl-go'],
    ok: ['rl-express', 'rl-fastapi', 'load-test-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'my web app freezes while it sends the newsletter to every subscriber',
    best: ['queue-bull-node'],
    ok: ['celery-py', 'email-digest-node'],
  },
  {
    kind: 'paraphrase',
    q: 'users keep forgetting their passwords, let them get in from their inbox instead',
    best: ['auth-magic-express'],
  },
  {
    kind: 'paraphrase',
    q: 'let visitors use their existing social accounts to get into my site',
    best: ['auth-oauth-django'],
  },
  {
    kind: 'paraphrase',
    q: "stop one noisy customer from eating all my service's capacity",
    best: ['rl-express', 'rl-fastapi', 'rl-go'],
    ok: ['rl-rails'],
  },
  {
    kind: 'paraphrase',
    q: 'a partner keeps blocking us because our workers hit their endpoints too fast',
    best: ['pacer-py'],
    ok: ['retry-http-py'],
  },
  {
    kind: 'paraphrase',
    q: 'somebody keeps guessing passwords on our login page',
    best: ['rl-rails'],
    ok: ['auth-jwt-go'],
  },
  {
    kind: 'paraphrase',
    q: 'know within a minute when the website stops answering',
    best: ['uptime-go'],
  },
  {
    kind: 'paraphrase',
    q: 'the server ran out of room overnight and nobody noticed',
    best: ['disk-alert-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'find out what goes wrong for real visitors in their browsers, bucketed by where it broke',
    best: ['error-sdk-js'],
  },
  {
    kind: 'paraphrase',
    q: "get warned when our app's output suddenly shows messages it has never printed before",
    best: ['log-anomaly-py'],
  },
  {
    kind: 'paraphrase',
    q: 'read the total and store name off a crumpled paper slip I photographed',
    best: ['ocr-receipts-py'],
    ok: ['expense-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: 'log my daily spending by chatting from my phone',
    best: ['expense-bot-py'],
    ok: ['budget-react'],
  },
  {
    kind: 'paraphrase',
    q: 'work out how much money I can put aside every month',
    best: ['budget-react'],
    ok: ['expense-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: 'tell me when that pair of shoes I want gets cheaper',
    best: ['price-watch-py'],
    ok: ['scrape-shop-py'],
  },
  {
    kind: 'paraphrase',
    q: 'ping me when a share I own falls below forty dollars',
    best: ['stock-alerts-node'],
  },
  {
    kind: 'paraphrase',
    q: 'how many yen is an amount in euros, using the official daily figures',
    best: ['fx-convert-go'],
  },
  {
    kind: 'paraphrase',
    q: 'let customers pay monthly after a free trial period',
    best: ['stripe-subs'],
    ok: ['checkout-next'],
  },
  {
    kind: 'paraphrase',
    q: 'bill my clients with nicely branded documents they can print',
    best: ['invoice-pdf-py'],
  },
  {
    kind: 'paraphrase',
    q: 'visitors fill a basket and pay with a discount code on my small store',
    best: ['checkout-next'],
    ok: ['stripe-subs'],
  },
  {
    kind: 'paraphrase',
    q: "show a small popup from my site even when the site's tab is closed",
    best: ['webpush-node'],
    ok: ['mobile-push-kt'],
  },
  {
    kind: 'paraphrase',
    q: 'text customers a code on their phone',
    best: ['sms-twilio-py'],
  },
  {
    kind: 'paraphrase',
    q: 'send every user one roundup each morning instead of dozens of messages',
    best: ['email-digest-node'],
  },
  {
    kind: 'paraphrase',
    q: 'post to our team channel when a deploy script fails',
    best: ['slack-alert-go'],
    ok: ['disk-alert-sh'],
  },
  {
    kind: 'paraphrase',
    q: "wake users' handsets with a background alert from our backend",
    best: ['mobile-push-kt'],
    ok: ['webpush-node'],
  },
  {
    kind: 'paraphrase',
    q: 'crash on boot if a setting is missing instead of failing later',
    best: ['env-config-ts'],
    ok: ['yaml-config-py'],
  },
  {
    kind: 'paraphrase',
    q: 'keep passwords out of the repo and hand them to my scripts at run time',
    best: ['secrets-rs'],
    ok: ['env-config-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'same editor and shell setup on my laptop and my work machine',
    best: ['dotfiles-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'defaults, then per-environment overrides, then local tweaks, all merged into one',
    best: ['yaml-config-py'],
    ok: ['env-config-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'call the other side again after a pause when it times out or answers 503',
    best: ['retry-http-py', 'fetch-retry-ts'],
    ok: ['breaker-go'],
  },
  {
    kind: 'paraphrase',
    q: 'stop hammering a dependency that is already down',
    best: ['breaker-go'],
    ok: ['retry-http-py'],
  },
  {
    kind: 'paraphrase',
    q: "our customers' endpoints are flaky; make sure each event notice reaches them eventually",
    best: ['webhook-relay-node'],
  },
  {
    kind: 'paraphrase',
    q: 'open a 20 GB comma separated export without running out of memory',
    best: ['csv-reader-py'],
    ok: ['parquet-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'shrink our analytics exports into a columnar format that loads fast',
    best: ['parquet-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'check that our deployment manifests follow the agreed structure before merge',
    best: ['yaml-lint-go'],
    ok: ['ci-actions'],
  },
  {
    kind: 'paraphrase',
    q: 'turn a legacy soap payload into something our frontend can read',
    best: ['xml-java'],
  },
  {
    kind: 'paraphrase',
    q: 'make small previews of every picture users upload',
    best: ['thumbs-node'],
    ok: ['img-optimize-py'],
  },
  {
    kind: 'paraphrase',
    q: 'our clips need to play smoothly on slow mobile connections',
    best: ['video-transcode-go'],
  },
  {
    kind: 'paraphrase',
    q: 'combine three contracts into one document and cut out page 4',
    best: ['pdf-merge-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'pull the figures out of the grids in the quarterly reports the bank sends',
    best: ['pdf-tables-py'],
  },
  {
    kind: 'paraphrase',
    q: "a lookup box that still finds 'recieve' when people mean 'receive'",
    best: ['fuzzy-search-js'],
    ok: ['dedupe-py'],
  },
  {
    kind: 'paraphrase',
    q: 'the same client appears three times in our crm under slightly different names',
    best: ['dedupe-py'],
  },
  {
    kind: 'paraphrase',
    q: 'find documents that mean the same thing even with no words in common',
    best: ['vector-search-py'],
  },
  {
    kind: 'paraphrase',
    q: "run a cleanup command every night at 2am and tell me if it didn't work",
    best: ['cron-go'],
    ok: ['celery-py'],
  },
  {
    kind: 'paraphrase',
    q: 'spread heavy number crunching across several machines',
    best: ['celery-py'],
    ok: ['queue-bull-node'],
  },
  {
    kind: 'paraphrase',
    q: 'keep raiders and link spammers out of our gaming community server',
    best: ['discord-mod-ts'],
    ok: ['spam-filter-py'],
  },
  {
    kind: 'paraphrase',
    q: 'answer repetitive questions from buyers automatically using our help-centre pages',
    best: ['faq-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: "group conversations where everyone sees new messages the instant they're typed",
    best: ['ws-chat-node'],
  },
  {
    kind: 'paraphrase',
    q: 'we lost a day of orders when the database disk died; never again',
    best: ['pg-backup-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'stand up managed container orchestration on amazon as code, not console clicks',
    best: ['tf-k8s'],
  },
  {
    kind: 'paraphrase',
    q: 'only build and test the packages a pull request touched',
    best: ['ci-actions'],
  },
  {
    kind: 'paraphrase',
    q: 'apply database changes in order during deploys without two servers racing',
    best: ['migrate-go'],
  },
  {
    kind: 'paraphrase',
    q: 'how many users can our backend take before latency goes through the roof',
    best: ['load-test-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'restart the dev server by itself every time I hit save',
    best: ['file-watch-go'],
  },
  {
    kind: 'paraphrase',
    q: 'internal back-office panel with sortable tables and a dark theme',
    best: ['admin-react'],
  },
  {
    kind: 'paraphrase',
    q: 'show an error under each input when the email address is wrong',
    best: ['forms-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'plot revenue over months with zoom and hover details',
    best: ['charts-d3'],
    ok: ['admin-react'],
  },
  {
    kind: 'paraphrase',
    q: 'a single-screen marketing site with plans, testimonials and a signup for updates',
    best: ['landing-vue'],
  },
  {
    kind: 'paraphrase',
    q: 'turn a folder of plain-text posts into a website I can host anywhere',
    best: ['blog-md-py'],
  },
  {
    kind: 'paraphrase',
    q: 'warn people signing up, while they type, that their secret is too easy to guess',
    best: ['pwd-strength-js'],
  },
  {
    kind: 'paraphrase',
    q: 'let guests join the wifi by pointing their camera at a sign',
    best: ['qr-py'],
  },
  {
    kind: 'paraphrase',
    q: 'will it rain in Lisbon tomorrow afternoon, asked from my code',
    best: ['weather-py'],
  },
  {
    kind: 'paraphrase',
    q: 'make the giant one-line database statements in our logs readable',
    best: ['sql-format-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'what are buyers unhappy about in the feedback they leave',
    best: ['sentiment-py'],
  },
  {
    kind: 'paraphrase',
    q: 'my work meetings and personal appointments live in two apps and never match',
    best: ['calendar-sync-py'],
  },
  {
    kind: 'paraphrase',
    q: 'something fun to play in the console during a long build',
    best: ['snake-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'give cofounders their tokens gradually over four years with a one-year cliff',
    best: ['erc20-vesting'],
  },
  {
    kind: 'paraphrase',
    q: 'know which shelf has how many boxes and reorder before we run out',
    best: ['inventory-go'],
  },
  {
    kind: 'paraphrase',
    q: 'find every dead link on our company site',
    best: ['crawl-go'],
  },
  {
    kind: 'paraphrase',
    q: 'a feed of what the big papers put on their front page',
    best: ['scrape-news-node'],
  },
  {
    kind: 'paraphrase',
    q: 'collect new openings from hiring sites every morning without duplicates',
    best: ['scrape-jobs-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'decide who may call admin endpoints by their job in the company, and record refusals',
    best: ['auth-rbac-spring'],
  },
  {
    kind: 'paraphrase',
    q: 'hand each integration partner a revocable secret credential scoped to what they may do',
    best: ['auth-apikey-fastify'],
  },
  {
    kind: 'paraphrase',
    q: 'short-lived tokens renewed in the background, and lock the account after bad tries',
    best: ['auth-jwt-go'],
  },
  {
    kind: 'paraphrase',
    q: 'watch memory and hit ratio of our cache in grafana',
    best: ['redis-exporter-py'],
  },

  // ---- stack: the task plus the language or framework it must be in ----
  {
    kind: 'stack',
    q: 'fastapi per-user call allowance',
    best: ['rl-fastapi'],
    ok: ['rl-express', 'rl-go'],
  },
  {
    kind: 'stack',
    q: 'cap how often each address hits my go server',
    best: ['rl-go'],
    ok: ['rl-express', 'rl-fastapi'],
  },
  { kind: 'stack', q: 'block brute force logins in rails', best: ['rl-rails'] },
  {
    kind: 'stack',
    q: 'express: cap each client at 100 calls a minute, answer 429',
    best: ['rl-express'],
    ok: ['rl-fastapi', 'rl-go'],
  },
  {
    kind: 'stack',
    q: 'node.js pull top stories from newspaper homepages',
    best: ['scrape-news-node'],
  },
  {
    kind: 'stack',
    q: 'python headless browser to copy prices from a retailer',
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  { kind: 'stack', q: 'go tool that walks all pages of a domain', best: ['crawl-go'] },
  { kind: 'stack', q: 'rust one-time codes for an authenticator app', best: ['auth-totp-rs'] },
  {
    kind: 'stack',
    q: 'django social login with existing identities',
    best: ['auth-oauth-django'],
  },
  {
    kind: 'stack',
    q: 'java spring: restrict endpoints to admins and managers',
    best: ['auth-rbac-spring'],
  },
  {
    kind: 'stack',
    q: 'kotlin app receiving server-sent alerts while closed',
    best: ['mobile-push-kt'],
  },
  { kind: 'stack', q: 'typescript check env at startup', best: ['env-config-ts'] },
  { kind: 'stack', q: 'go redirect service for tiny urls', best: ['url-short-go'] },
  { kind: 'stack', q: 'python turn mp3 interviews into srt', best: ['speech-text-py'] },
  {
    kind: 'stack',
    q: 'rust: glue several scanned contracts into one file from the shell',
    best: ['pdf-merge-rs'],
  },
  {
    kind: 'stack',
    q: 'c++ header-only library reading api responses with exact error offsets',
    best: ['json-parser-cpp'],
  },
  { kind: 'stack', q: 'node.js produce spreadsheets for accountants', best: ['xlsx-node'] },
  {
    kind: 'stack',
    q: 'python: farm out slow computations to worker machines',
    best: ['celery-py'],
    ok: ['queue-bull-node'],
  },

  // ---- long: an agent's task prompt ----
  {
    kind: 'long',
    q: 'I am building a public REST service in Python with fastapi and need to stop individual users from sending more than a few hundred calls per hour; over the allowance they should get a 429 and see how much they have left.',
    best: ['rl-fastapi'],
    ok: ['rl-express', 'rl-go'],
  },
  {
    kind: 'long',
    q: 'Our marketing team sends a weekly newsletter and every time it goes out the site falls over because thousands of readers click through at once; find something that smooths out those bursts on our Go backend.',
    best: ['rl-go'],
    ok: ['load-test-rs'],
  },
  {
    kind: 'long',
    q: "Agent task: collect the asking price and availability of 500 items from a competitor's online store every night and save them to a spreadsheet file; the store renders with JavaScript, so a real browser is needed.",
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  {
    kind: 'long',
    q: 'We run a SaaS and want customers charged automatically each month, with a 14-day free trial, upgrades mid-cycle charged pro rata, and emails with the receipts.',
    best: ['stripe-subs'],
    ok: ['checkout-next', 'invoice-pdf-py'],
  },
  {
    kind: 'long',
    q: "Task: when our nightly jobs or deploy scripts fail, post a formatted message into the team's chat channel, but not more than once per incident and never at 3am.",
    best: ['slack-alert-go'],
    ok: ['disk-alert-sh'],
  },
  {
    kind: 'long',
    q: 'Find code that looks at the lines our services print, works out what normal volume looks like for each kind of message and raises a flag when a burst or a never-seen message appears.',
    best: ['log-anomaly-py'],
  },
  {
    kind: 'long',
    q: 'Need a service that takes each clip a user uploads, produces adaptive streams at 360p, 720p and 1080p for phones and TVs, and picks a still frame as the cover image.',
    best: ['video-transcode-go'],
  },
  {
    kind: 'long',
    q: 'Accountants email us photos of paper slips from restaurants and taxis; we need the merchant, the date and the amount pulled out automatically so they land in the books.',
    best: ['ocr-receipts-py'],
    ok: ['expense-bot-py'],
  },
  {
    kind: 'long',
    q: 'Our mobile app users forget their credentials constantly. Replace the sign-in form with an email containing a single-use URL valid for a quarter of an hour; the backend runs on Express.',
    best: ['auth-magic-express'],
  },
  {
    kind: 'long',
    q: 'Before launch we want to know the 95th and 99th percentile response time of our checkout endpoint under 2,000 simultaneous users.',
    best: ['load-test-rs'],
  },
  {
    kind: 'long',
    q: "Our help desk is drowning in the same twenty questions; find a bot that answers from our knowledge base articles and passes the conversation to a person when it isn't confident.",
    best: ['faq-bot-py'],
  },
  {
    kind: 'long',
    q: "Several suppliers send us the same companies spelled differently ('ACME Inc', 'Acme, Inc.'); I need those rows found and collapsed into one each.",
    best: ['dedupe-py'],
  },
  {
    kind: 'long',
    q: 'We want to switch new functionality on for 5% of users first, then everyone, and turn it off instantly without a redeploy if metrics dip.',
    best: ['flags-go'],
  },
  {
    kind: 'long',
    q: 'Write me a tool for the ops team: every night, dump the production Postgres database, compress and encrypt it, upload it to object storage on Amazon and keep thirty days of copies.',
    best: ['pg-backup-sh'],
  },
  {
    kind: 'long',
    q: "Our translation agency sends texts per language; the web app must pick the visitor's locale, handle 'one item / two items' forms properly and list what has not been translated yet.",
    best: ['i18n-js'],
  },
  {
    kind: 'long',
    q: 'An agent must turn large daily comma-separated dumps from our billing system into compact columnar files that our data lake queries efficiently.',
    best: ['parquet-rs'],
    ok: ['csv-reader-py'],
  },
];
