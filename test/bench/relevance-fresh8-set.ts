/**
 * The eighth fresh relevance set (issue 30, stop 59): 189 buyer queries over the paraphrase set's
 * catalogue, written blind by a helper engineer who read only the listings (key, title, tech stack,
 * description, printed from PARAPHRASE_LISTINGS) and the checker
 * (test/unit/relevance-paraphrase-set.test.ts): never the search code, the lexicon, the queries of
 * any other set, nor a ranking of anything. The seventh set has now been read, so the next change
 * needs queries nobody has seen ranked.
 *
 * Kinds as in QUERY_KINDS: keyword = a few words a buyer types; paraphrase = a task in the buyer's
 * own words; stack = names a language, framework or runtime, and the wanted listing is the one in
 * that stack; long = two to four sentences of context, much of it not the task (the team, the
 * deadline, what they already run). Many queries tell close siblings apart (the four rate limiters
 * and the outbound pacer, the scrapers, the sign-in services, the alerting tools, the image tools,
 * the billing tools, the retrying clients, the job runners) or name a task only by its effect, in
 * everyday words. `best` is what a competent engineer would want first; `ok` only a sibling that
 * does the job too (none where the buyer names another stack).
 *
 * Measured when written: no query reuses a content word of its wanted listing's title or tech
 * stack, and on average 23.7 % of a query's content words are in the wanted listing's description
 * (ceiling 28 %). Counts: 24 keyword, 107 paraphrase, 34 stack, 24 long.
 *
 * Sealed until stop 59's second reading: read only when BENCH_RELEVANCE_SETS names `fresh8`. Never
 * edit a query after a reading; write a new set instead.
 */
import type { RelevanceQuery } from './relevance-set.js';

export const FRESH8_QUERIES: RelevanceQuery[] = [
  // ---- keyword: a few words, the way a buyer types into a search box ----
  { kind: 'keyword', q: 'ban brute force logins', best: ['rl-rails'], ok: ['auth-jwt-go'] },
  { kind: 'keyword', q: 'dead link checker', best: ['crawl-go'] },
  { kind: 'keyword', q: 'till slip photo to numbers', best: ['ocr-receipts-py'] },
  { kind: 'keyword', q: 'cut out subject transparent', best: ['bg-remove-py'] },
  {
    kind: 'keyword',
    q: 'make jpgs lighter, same look',
    best: ['img-optimize-py'],
    ok: ['thumbs-node'],
  },
  { kind: 'keyword', q: 'captions from interview audio', best: ['speech-text-py'] },
  { kind: 'keyword', q: 'log in with existing social accounts', best: ['auth-oauth-django'] },
  { kind: 'keyword', q: 'authenticator app codes', best: ['auth-totp-rs'] },
  { kind: 'keyword', q: 'monthly membership charging', best: ['stripe-subs'] },
  { kind: 'keyword', q: 'dollars to euros today', best: ['fx-convert-go'] },
  { kind: 'keyword', q: 'off-site db copies every night', best: ['pg-backup-sh'] },
  { kind: 'keyword', q: 'tiny urls visit counts', best: ['url-short-go'] },
  { kind: 'keyword', q: 'scannable square barcode wifi', best: ['qr-py'] },
  { kind: 'keyword', q: 'spreadsheet export with formulas', best: ['xlsx-node'] },
  { kind: 'keyword', q: 'combine documents into one file', best: ['pdf-merge-rs'] },
  { kind: 'keyword', q: 'which country is this visitor from', best: ['geoip-go'] },
  {
    kind: 'keyword',
    q: 'find entries despite misspellings',
    best: ['fuzzy-search-js'],
    ok: ['dedupe-py'],
  },
  { kind: 'keyword', q: 'is my site down monitor', best: ['uptime-go'] },
  { kind: 'keyword', q: 'live group messaging backend', best: ['ws-chat-node'] },
  { kind: 'keyword', q: 'nine by nine number puzzle', best: ['sudoku-py'] },
  { kind: 'keyword', q: 'old-school arcade fun in the console', best: ['snake-rs'] },
  { kind: 'keyword', q: 'token unlock schedule for team', best: ['erc20-vesting'] },
  { kind: 'keyword', q: 'reorder warnings for shelf items', best: ['inventory-go'] },
  { kind: 'keyword', q: 'wishlist cheaper notify', best: ['price-watch-py'] },

  // ---- paraphrase: the task in the buyer's own words ----
  {
    kind: 'paraphrase',
    q: 'cap how often each customer can hit my Node backend and answer "slow down" when they go over',
    best: ['rl-express'],
  },
  {
    kind: 'paraphrase',
    q: 'each user gets so many calls per hour in my Python API and the response should say how many are left',
    best: ['rl-fastapi'],
  },
  {
    kind: 'paraphrase',
    q: 'smooth out traffic spikes per caller in a Go web server so one noisy client cannot flood us',
    best: ['rl-go'],
  },
  {
    kind: 'paraphrase',
    q: 'stop bots hammering our sign-in form and lock them out for a while, but never our own office',
    best: ['rl-rails'],
  },
  {
    kind: 'paraphrase',
    q: 'our workers keep getting told to back off by a partner service; space out what we send so we stay under their allowance',
    best: ['pacer-py'],
  },
  {
    kind: 'paraphrase',
    q: 'slow down how fast my own program talks to someone else’s service',
    best: ['pacer-py'],
  },
  {
    kind: 'paraphrase',
    q: 'cap how fast strangers can hit my endpoints',
    best: ['rl-express', 'rl-fastapi', 'rl-go'],
    ok: ['rl-rails'],
  },
  {
    kind: 'paraphrase',
    q: 'grab what competitor online stores charge and whether items are available, into a spreadsheet',
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: 'walk every link on our company site, tell me which ones 404 and produce a map for search engines',
    best: ['crawl-go'],
  },
  {
    kind: 'paraphrase',
    q: 'turn the front pages of a few papers into a feed I can follow in my reader app',
    best: ['scrape-news-node'],
  },
  {
    kind: 'paraphrase',
    q: 'gather open positions from several hiring sites every day, pay ranges cleaned up and no repeats',
    best: ['scrape-jobs-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'pull the grids of numbers out of quarterly report documents into something I can analyse',
    best: ['pdf-tables-py'],
  },
  {
    kind: 'paraphrase',
    q: 'sign-in backend that hands out short-lived access credentials and locks an account after too many wrong passwords',
    best: ['auth-jwt-go'],
  },
  {
    kind: 'paraphrase',
    q: 'let people enter our Python web app with accounts they already have at big providers instead of a new password',
    best: ['auth-oauth-django'],
  },
  {
    kind: 'paraphrase',
    q: 'users get an email, click it and they are in: nothing to remember',
    best: ['auth-magic-express'],
  },
  {
    kind: 'paraphrase',
    q: 'add a second step when people log in where they type the numbers from their phone',
    best: ['auth-totp-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'decide which staff may call which endpoints and record who was refused',
    best: ['auth-rbac-spring'],
  },
  {
    kind: 'paraphrase',
    q: 'give each customer their own secret credential for our platform, restrict what it can do and cancel it when they leave',
    best: ['auth-apikey-fastify'],
  },
  {
    kind: 'paraphrase',
    q: 'tell me when the stuff on my wishlist gets cheaper',
    best: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: 'let me know when that camera I want goes on sale',
    best: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: 'ping me when shares of a company go above or below numbers I pick',
    best: ['stock-alerts-node'],
  },
  {
    kind: 'paraphrase',
    q: 'our shop shows euros but visitors come from the US and Japan; show roughly what it costs in their money',
    best: ['fx-convert-go'],
  },
  {
    kind: 'paraphrase',
    q: 'let visitors of my little online store pay, with discount codes and sales tax worked out',
    best: ['checkout-next'],
  },
  {
    kind: 'paraphrase',
    q: 'charge customers every month, with free trial periods and a place where they can change their plan',
    best: ['stripe-subs'],
  },
  {
    kind: 'paraphrase',
    q: 'make nice-looking bills with our logo from order data',
    best: ['invoice-pdf-py'],
  },
  {
    kind: 'paraphrase',
    q: 'write down what I spend by messaging a chat assistant and get a breakdown each month',
    best: ['expense-bot-py'],
    ok: ['budget-react'],
  },
  {
    kind: 'paraphrase',
    q: 'plan the household money each month: rent, what we put aside and what is left at month end',
    best: ['budget-react'],
    ok: ['expense-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: 'notice weird spikes of failures in what our apps print, without writing rules by hand',
    best: ['log-anomaly-py'],
  },
  {
    kind: 'paraphrase',
    q: 'send the lines our services write to disk into a search cluster without losing any when it is slow',
    best: ['log-ship-go'],
  },
  {
    kind: 'paraphrase',
    q: 'poll our website every minute to see whether it answers, and publish incident history for customers',
    best: ['uptime-go'],
  },
  {
    kind: 'paraphrase',
    q: 'graph cache memory and hit ratio next to our other dashboards',
    best: ['redis-exporter-py'],
  },
  {
    kind: 'paraphrase',
    q: 'find out when our web app crashes in people’s browsers and bundle identical crashes together',
    best: ['error-sdk-js'],
  },
  {
    kind: 'paraphrase',
    q: 'warn our team channel when a server’s drives are almost full',
    best: ['disk-alert-sh'],
    ok: ['slack-alert-go'],
  },
  {
    kind: 'paraphrase',
    q: 'pop up messages on visitors’ desktops from our site even when the tab is closed',
    best: ['webpush-node'],
  },
  {
    kind: 'paraphrase',
    q: 'text customers on their phones, know whether it arrived and let them reply stop',
    best: ['sms-twilio-py'],
  },
  {
    kind: 'paraphrase',
    q: 'instead of one message per event, send each person a single morning roundup',
    best: ['email-digest-node'],
  },
  {
    kind: 'paraphrase',
    q: 'post warnings from our scripts into the team chat without repeating the same one twice',
    best: ['slack-alert-go'],
  },
  {
    kind: 'paraphrase',
    q: 'show a heads-up on our phone app when an order ships, even if the app is closed',
    best: ['mobile-push-kt'],
    ok: ['webpush-node'],
  },
  {
    kind: 'paraphrase',
    q: 'refuse to boot if a setting is missing or malformed in our Node service',
    best: ['env-config-ts'],
    ok: ['yaml-config-py'],
  },
  {
    kind: 'paraphrase',
    q: 'expose the new checkout to five percent of people first and switch it off at once if it breaks',
    best: ['flags-go'],
  },
  {
    kind: 'paraphrase',
    q: 'keep our tokens and passwords out of plain text files and hand them to a command only when it runs',
    best: ['secrets-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'same shell and editor setup on my laptop and on every server I log into',
    best: ['dotfiles-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'defaults file plus per-environment overrides, merged and checked, for a Python app',
    best: ['yaml-config-py'],
    ok: ['env-config-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'when a call to another service times out or gets a 503, try again a few times with growing waits, in Python',
    best: ['retry-http-py'],
  },
  {
    kind: 'paraphrase',
    q: 'stop hammering a dependency that keeps failing and give it another chance after a pause',
    best: ['breaker-go'],
  },
  {
    kind: 'paraphrase',
    q: 'in the browser, give up on slow calls and repeat failed GETs a few times',
    best: ['fetch-retry-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'tell our customers’ servers when orders change, signed, and keep trying if they are down',
    best: ['webhook-relay-node'],
  },
  {
    kind: 'paraphrase',
    q: 'open a 20 GB comma-separated export in Python without running out of RAM',
    best: ['csv-reader-py'],
  },
  {
    kind: 'paraphrase',
    q: 'small library to read and write API payloads in C++ that says exactly where the input is broken',
    best: ['json-parser-cpp'],
  },
  {
    kind: 'paraphrase',
    q: 'make our huge spreadsheet exports smaller and columnar for the data lake',
    best: ['parquet-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'let accountants download a spreadsheet with several tabs and working sums',
    best: ['xlsx-node'],
  },
  {
    kind: 'paraphrase',
    q: 'catch mistakes in our deployment manifests before they are applied, with line numbers',
    best: ['yaml-lint-go'],
  },
  {
    kind: 'paraphrase',
    q: 'a partner sends old SOAP-style documents full of tags; our frontend wants plain objects',
    best: ['xml-java'],
  },
  {
    kind: 'paraphrase',
    q: 'whenever someone uploads a picture, make little versions of it in several sizes behind the scenes',
    best: ['thumbs-node'],
    ok: ['img-optimize-py'],
  },
  {
    kind: 'paraphrase',
    q: 'our product photos make the shop slow; make the files lighter without them looking worse',
    best: ['img-optimize-py'],
    ok: ['thumbs-node'],
  },
  {
    kind: 'paraphrase',
    q: 'turn uploaded clips into adaptive streams for phones and TVs',
    best: ['video-transcode-go'],
  },
  {
    kind: 'paraphrase',
    q: 'staff snap pictures of what they bought on trips; read the shop, day and amount automatically',
    best: ['ocr-receipts-py'],
  },
  {
    kind: 'paraphrase',
    q: 'isolate the person in a portrait so we can place them on any backdrop',
    best: ['bg-remove-py'],
  },
  {
    kind: 'paraphrase',
    q: 'glue several scanned contracts together and pull out pages 3 to 7',
    best: ['pdf-merge-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'write down what was said in our recorded meetings without sending them anywhere',
    best: ['speech-text-py'],
  },
  {
    kind: 'paraphrase',
    q: 'our filter box finds nothing when shoppers misspell a name; fix that without a server round trip',
    best: ['fuzzy-search-js'],
  },
  {
    kind: 'paraphrase',
    q: 'our CRM has the same client three times with slightly different spellings',
    best: ['dedupe-py'],
  },
  {
    kind: 'paraphrase',
    q: 'find documents that mean the same thing as a question, not just share its words',
    best: ['vector-search-py'],
  },
  {
    kind: 'paraphrase',
    q: 'run our nightly scripts at fixed times, never two copies at once, and keep a history of each run',
    best: ['cron-go'],
  },
  {
    kind: 'paraphrase',
    q: 'sending emails makes our signup slow; hand that work to workers and watch how far along it is',
    best: ['queue-bull-node'],
    ok: ['celery-py'],
  },
  {
    kind: 'paraphrase',
    q: 'spread heavy number crunching over a farm of machines and collect the answers',
    best: ['celery-py'],
  },
  {
    kind: 'paraphrase',
    q: 'keep our gaming community server clean: delete scam links and silence people who flood',
    best: ['discord-mod-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'answer common shopper questions automatically from our help articles and pass to staff when unsure',
    best: ['faq-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: 'let people in the same channel message each other live and see who is online',
    best: ['ws-chat-node'],
  },
  {
    kind: 'paraphrase',
    q: 'copy our database off the box every night and keep a month of copies',
    best: ['pg-backup-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'infrastructure as code that stands up managed container orchestration on Amazon with workers that grow',
    best: ['tf-k8s'],
  },
  {
    kind: 'paraphrase',
    q: 'in our repo with thirty packages, only test and build what changed on each push',
    best: ['ci-actions'],
  },
  {
    kind: 'paraphrase',
    q: 'apply database changes in order on deploy, undo them if needed, and make sure two deploys never clash',
    best: ['migrate-go'],
  },
  {
    kind: 'paraphrase',
    q: 'how many hits per second can our endpoint take before it gets slow?',
    best: ['load-test-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'restart my program automatically every time I save code',
    best: ['file-watch-go'],
  },
  {
    kind: 'paraphrase',
    q: 'back-office screens to build on: sidebar, sortable grids and a night theme',
    best: ['admin-react'],
  },
  {
    kind: 'paraphrase',
    q: 'show a message under each signup field and check the username is free as the person types',
    best: ['forms-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'ship our app in German and Polish with correct plurals',
    best: ['i18n-js'],
  },
  {
    kind: 'paraphrase',
    q: 'graphs of takings per month for our storefront that you can zoom into',
    best: ['charts-d3'],
    ok: ['admin-react'],
  },
  {
    kind: 'paraphrase',
    q: 'marketing website with pricing tiers, customer quotes and a signup box for updates',
    best: ['landing-vue'],
  },
  {
    kind: 'paraphrase',
    q: 'turn long campaign addresses into tiny ones and see which countries visit',
    best: ['url-short-go'],
  },
  {
    kind: 'paraphrase',
    q: 'write posts as text files and publish a fast website with tags and a feed',
    best: ['blog-md-py'],
  },
  {
    kind: 'paraphrase',
    q: 'tell people at signup that "summer2024" is far too easy to guess',
    best: ['pwd-strength-js'],
  },
  {
    kind: 'paraphrase',
    q: 'junk posts on our forum: train something on what our moderators deleted',
    best: ['spam-filter-py'],
  },
  {
    kind: 'paraphrase',
    q: 'show visitors their flag based on where the connection comes from',
    best: ['geoip-go'],
  },
  {
    kind: 'paraphrase',
    q: 'print something on flyers that phones scan to join our guest wifi',
    best: ['qr-py'],
  },
  {
    kind: 'paraphrase',
    q: 'will it rain in Lisbon this week? fetch that for our travel app',
    best: ['weather-py'],
  },
  {
    kind: 'paraphrase',
    q: 'tidy up ugly database statements so code reviews are readable',
    best: ['sql-format-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'are shoppers happy with what they bought? read their feedback and list what they grumble about',
    best: ['sentiment-py'],
  },
  {
    kind: 'paraphrase',
    q: 'my work meetings live in Microsoft and personal ones elsewhere; keep both schedules identical',
    best: ['calendar-sync-py'],
  },
  {
    kind: 'paraphrase',
    q: 'something tiny and arcade-like to play in a console window during long builds',
    best: ['snake-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'make logic grids of varying difficulty for a puzzle page and solve readers’ ones',
    best: ['sudoku-py'],
  },
  {
    kind: 'paraphrase',
    q: 'release coins to our founders monthly after a one-year wait, on chain',
    best: ['erc20-vesting'],
  },
  {
    kind: 'paraphrase',
    q: 'know how many boxes of each item sit on which shelf and get warned before we run out',
    best: ['inventory-go'],
  },
  {
    kind: 'paraphrase',
    q: 'collect crash reports from the front end of our site',
    best: ['error-sdk-js'],
  },
  {
    kind: 'paraphrase',
    q: 'nudge subscribers in their browser when we publish something new',
    best: ['webpush-node'],
  },
  {
    kind: 'paraphrase',
    q: 'I want our shop pictures to load faster',
    best: ['img-optimize-py'],
    ok: ['thumbs-node'],
  },
  {
    kind: 'paraphrase',
    q: 'we keep forgetting to renew the database copies; automate it and keep old ones for a year',
    best: ['pg-backup-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'need admins, editors and viewers to see different things in our Java app',
    best: ['auth-rbac-spring'],
  },
  {
    kind: 'paraphrase',
    q: 'entry codes sent to an inbox that work once and die after a quarter of an hour',
    best: ['auth-magic-express'],
  },
  {
    kind: 'paraphrase',
    q: 'I need to know the moment our checkout stops answering',
    best: ['uptime-go'],
  },
  {
    kind: 'paraphrase',
    q: 'who opens the addresses we share on social media, and from where?',
    best: ['url-short-go'],
  },
  {
    kind: 'paraphrase',
    q: 'we keep getting duplicate people in our mailing list export',
    best: ['dedupe-py'],
  },
  {
    kind: 'paraphrase',
    q: 'do the slow part of a request later, with some tasks more urgent than others',
    best: ['queue-bull-node'],
    ok: ['celery-py'],
  },
  {
    kind: 'paraphrase',
    q: 'read photographed bills from the shop and total up what was paid',
    best: ['ocr-receipts-py'],
  },
  {
    kind: 'paraphrase',
    q: 'how do I know if buyers hate the new blender? summarise their comments',
    best: ['sentiment-py'],
  },
  {
    kind: 'paraphrase',
    q: 'get a phone buzz when the share price of my favourite company moves past my mark',
    best: ['stock-alerts-node'],
  },

  // ---- stack: names the language or framework; the wanted listing is the one in it ----
  { kind: 'stack', q: 'per-IP caps on hits for an Express app', best: ['rl-express'] },
  { kind: 'stack', q: 'per-user allowance of calls per hour in FastAPI', best: ['rl-fastapi'] },
  { kind: 'stack', q: 'smooth bursty callers in Go', best: ['rl-go'] },
  { kind: 'stack', q: 'lock out address floods in Rails', best: ['rl-rails'] },
  { kind: 'stack', q: 'Python helper to stay under a vendor’s usage caps', best: ['pacer-py'] },
  { kind: 'stack', q: 'Playwright script collecting what shops charge', best: ['scrape-shop-py'] },
  {
    kind: 'stack',
    q: 'Go program that visits every internal link and flags dead ones',
    best: ['crawl-go'],
  },
  {
    kind: 'stack',
    q: 'Node script turning newspaper front pages into a feed',
    best: ['scrape-news-node'],
  },
  { kind: 'stack', q: 'Rust collector for hiring posts', best: ['scrape-jobs-rs'] },
  { kind: 'stack', q: 'Django social login', best: ['auth-oauth-django'] },
  { kind: 'stack', q: 'Rust one-time codes for phone authenticators', best: ['auth-totp-rs'] },
  { kind: 'stack', q: 'Spring who-may-call-what rules per endpoint', best: ['auth-rbac-spring'] },
  { kind: 'stack', q: 'Fastify customer credentials with scopes', best: ['auth-apikey-fastify'] },
  {
    kind: 'stack',
    q: 'Go login backend with short-lived access tokens and hashed passwords',
    best: ['auth-jwt-go'],
  },
  { kind: 'stack', q: 'Next.js store paying flow with coupons', best: ['checkout-next'] },
  { kind: 'stack', q: 'Fastify monthly plans with trials', best: ['stripe-subs'] },
  { kind: 'stack', q: 'Python bills with our logo from order data', best: ['invoice-pdf-py'] },
  { kind: 'stack', q: 'React app for monthly spending envelopes', best: ['budget-react'] },
  {
    kind: 'stack',
    q: 'Python model trained on the forum posts our moderators deleted',
    best: ['spam-filter-py'],
  },
  {
    kind: 'stack',
    q: 'Python anomaly model for odd bursts in application output',
    best: ['log-anomaly-py'],
  },
  {
    kind: 'stack',
    q: 'Go agent that follows files and pushes JSON lines to a search cluster',
    best: ['log-ship-go'],
  },
  { kind: 'stack', q: 'Kotlin phone app heads-up messages', best: ['mobile-push-kt'] },
  {
    kind: 'stack',
    q: 'TypeScript settings checked against a schema at boot',
    best: ['env-config-ts'],
  },
  { kind: 'stack', q: 'Bash script for full drives', best: ['disk-alert-sh'] },
  { kind: 'stack', q: 'Rust command to join documents and take pages out', best: ['pdf-merge-rs'] },
  {
    kind: 'stack',
    q: 'Python, turn podcast audio into captions offline',
    best: ['speech-text-py'],
  },
  {
    kind: 'stack',
    q: 'C++ payload reading that points at the broken character',
    best: ['json-parser-cpp'],
  },
  {
    kind: 'stack',
    q: 'Java turning partner documents full of tags into objects for our frontend',
    best: ['xml-java'],
  },
  { kind: 'stack', q: 'Solidity cliff release for team coins', best: ['erc20-vesting'] },
  { kind: 'stack', q: 'Vue marketing site', best: ['landing-vue'] },
  {
    kind: 'stack',
    q: 'TypeScript pretty printer for database statements',
    best: ['sql-format-ts'],
  },
  {
    kind: 'stack',
    q: 'Go service counting quantities per shelf with low-quantity warnings',
    best: ['inventory-go'],
  },
  {
    kind: 'stack',
    q: 'Python retries with growing waits for outgoing calls',
    best: ['retry-http-py'],
  },
  { kind: 'stack', q: 'TypeScript browser calls that give up when slow', best: ['fetch-retry-ts'] },

  // ---- long: two to four sentences of context, much of it not the task ----
  {
    kind: 'long',
    q: 'Our small team runs a Python API on FastAPI behind a load balancer. A few customers script against it far too aggressively. We want each account held to a number of calls per hour and told how much is left.',
    best: ['rl-fastapi'],
  },
  {
    kind: 'long',
    q: 'We sell handmade candles and the launch is next Friday. The site is built with Next.js and we still have no way to take money. Discount codes would be nice.',
    best: ['checkout-next'],
  },
  {
    kind: 'long',
    q: 'Our ops team is two people and we run about forty Linux boxes. Last month one filled up and the database died at 3am. We want a message in our chat before that happens again.',
    best: ['disk-alert-sh'],
    ok: ['slack-alert-go'],
  },
  {
    kind: 'long',
    q: 'I am a freelance bookkeeper. Clients send me pictures of shop slips over WhatsApp. I would like the totals and dates typed out for me.',
    best: ['ocr-receipts-py'],
  },
  {
    kind: 'long',
    q: 'Our marketplace lets sellers upload shots straight from their phones. Listings load slowly because the originals are huge. We need smaller versions made after upload and stored in our bucket.',
    best: ['thumbs-node'],
    ok: ['img-optimize-py'],
  },
  {
    kind: 'long',
    q: 'We are moving payments to a new vendor next quarter. Their docs say they allow only a hundred hits a minute per account. Our batch workers fire thousands at once, so we must spread our traffic across all of them.',
    best: ['pacer-py'],
  },
  {
    kind: 'long',
    q: 'Auditors want every admin action to need an extra proof besides the password. Our backend is in Rust. Staff already use phone apps like Authy.',
    best: ['auth-totp-rs'],
  },
  {
    kind: 'long',
    q: 'Our help inbox gets the same twenty questions every day. We have a help centre with good articles already. Something should answer the easy ones and pass the hard ones to a person.',
    best: ['faq-bot-py'],
  },
  {
    kind: 'long',
    q: 'We are a tiny SaaS with a Go backend. When a partner is down our request threads pile up and everything falls over. We want to fail fast until it recovers.',
    best: ['breaker-go'],
  },
  {
    kind: 'long',
    q: 'Our gaming community chat grew to twenty thousand members over the summer. Volunteers cannot keep up with scam links and people flooding the channels.',
    best: ['discord-mod-ts'],
    ok: ['spam-filter-py'],
  },
  {
    kind: 'long',
    q: 'I run a weekly newsletter on remote work. Every Monday I copy openings from five hiring sites by hand. I want that collected automatically, with pay in one format and nothing appearing twice.',
    best: ['scrape-jobs-rs'],
  },
  {
    kind: 'long',
    q: 'Our product is used by other companies. They want to be told when their shipments change status. Their servers are sometimes down, so our messages must be signed and resent.',
    best: ['webhook-relay-node'],
  },
  {
    kind: 'long',
    q: 'We are a data team of four. Marketing exported the customer list from three tools and the same people appear several times with typos. We need one clean list by the end of the quarter.',
    best: ['dedupe-py'],
  },
  {
    kind: 'long',
    q: 'Our mobile team ships a Kotlin phone app. Product wants to nudge people when their order ships, even when the app is closed.',
    best: ['mobile-push-kt'],
  },
  {
    kind: 'long',
    q: 'We moved off Heroku to our own servers last month. Nobody set up copies of the Postgres data yet. We need nightly copies, locked, in Amazon storage, kept for a year.',
    best: ['pg-backup-sh'],
  },
  {
    kind: 'long',
    q: 'Finance asks every month for a file of orders with totals per region. We run Node. They want separate tabs and sums that still work when they edit it.',
    best: ['xlsx-node'],
  },
  {
    kind: 'long',
    q: 'Our conference talks are recorded. We want captions for each one but cannot send the recordings to any cloud for legal reasons.',
    best: ['speech-text-py'],
  },
  {
    kind: 'long',
    q: 'We maintain a React storefront and the finder box is the top complaint. Shoppers misspell brand names and get nothing. The catalogue is only a few thousand items, so it can all live on the page.',
    best: ['fuzzy-search-js'],
  },
  {
    kind: 'long',
    q: 'At work we are on Microsoft 365 but family events live in our phone accounts. We double-book constantly and want both schedules to match by themselves.',
    best: ['calendar-sync-py'],
  },
  {
    kind: 'long',
    q: 'I teach a small coding bootcamp. Students want the same editor and prompt setup on lab machines and their laptops, without copying by hand.',
    best: ['dotfiles-sh'],
  },
  {
    kind: 'long',
    q: 'We just raised a seed round and are giving coins to the founding team. The lawyers want a one-year cliff and monthly release after that, which the company can cancel.',
    best: ['erc20-vesting'],
  },
  {
    kind: 'long',
    q: 'We run Go across twenty microservices. Every team ships half-finished work behind if-statements. We want to show new things to one percent of customers and kill them instantly.',
    best: ['flags-go'],
  },
  {
    kind: 'long',
    q: 'Our Rails app was hit by credential stuffing last weekend: thousands of sign-in attempts from a few hundred addresses. We want them kept out for a while, but not our office VPN.',
    best: ['rl-rails'],
  },
  {
    kind: 'long',
    q: 'We are a two-person agency and the client demo is on Monday. We need back-office screens with tables and graphs on React, and no time to design them.',
    best: ['admin-react'],
  },
];
