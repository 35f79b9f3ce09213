/**
 * The seventh fresh relevance set (issue 30, stop 59): 187 buyer queries over the paraphrase set's
 * catalogue, written blind by a helper engineer who read only the listings (key, title, tech stack,
 * description, printed from PARAPHRASE_LISTINGS) and the checker
 * (test/unit/relevance-paraphrase-set.test.ts): never the search code, the lexicon, the queries of
 * any other set, nor a ranking of anything. Every earlier set has been read at least once, so the
 * next change needs queries nobody has seen ranked.
 *
 * Kinds as in QUERY_KINDS: keyword = a few words a buyer types; paraphrase = a task in the buyer's
 * own words; stack = names a language, framework or runtime, and the wanted listing is the one in
 * that stack; long = two to four sentences of context. Many queries tell close siblings apart (the
 * four rate limiters and the outbound pacer, the scrapers, the sign-in services, the alerting
 * tools, the image tools, the billing tools, the retrying clients, the job runners) or name a task
 * only by its effect, in everyday words. `best` is what a competent engineer would want first;
 * `ok` only a sibling that does the job too (none where the buyer names another stack).
 *
 * Measured when written: no query reuses a content word of its wanted listing's title or tech
 * stack, and on average 20.7 % of a query's content words are in the wanted listing's description
 * (ceiling 28 %; the sixth set was 16.7 %). Counts: 24 keyword, 107 paraphrase, 32 stack, 24 long.
 *
 * Sealed until stop 59's reading: read only when BENCH_RELEVANCE_SETS names `fresh7`. Never edit a
 * query after a reading; write a new set instead.
 */
import type { RelevanceQuery } from './relevance-set.js';

export const FRESH7_QUERIES: RelevanceQuery[] = [
  // ---- keyword: a few words, the way a buyer types into a search box ----
  { kind: 'keyword', q: 'find dead links on my site', best: ['crawl-go'] },
  { kind: 'keyword', q: 'competitor prices into a spreadsheet', best: ['scrape-shop-py'] },
  { kind: 'keyword', q: 'login codes from phone app', best: ['auth-totp-rs'] },
  { kind: 'keyword', q: 'notify me when it gets cheaper', best: ['price-watch-py'] },
  { kind: 'keyword', q: 'euros to dollars', best: ['fx-convert-go'] },
  { kind: 'keyword', q: 'monthly saas plans with trials', best: ['stripe-subs'] },
  { kind: 'keyword', q: 'till slip photo to totals', best: ['ocr-receipts-py'] },
  { kind: 'keyword', q: 'cut person out of picture', best: ['bg-remove-py'] },
  { kind: 'keyword', q: 'meeting recording to subtitles', best: ['speech-text-py'] },
  { kind: 'keyword', q: 'join scanned documents into one', best: ['pdf-merge-rs'] },
  { kind: 'keyword', q: 'make pictures smaller in kilobytes', best: ['img-optimize-py'] },
  { kind: 'keyword', q: 'nightly offsite copies of our database', best: ['pg-backup-sh'] },
  { kind: 'keyword', q: 'versioned database changes', best: ['migrate-go'] },
  { kind: 'keyword', q: 'benchmark endpoint latency under traffic', best: ['load-test-rs'] },
  { kind: 'keyword', q: 'restart app on save', best: ['file-watch-go'] },
  { kind: 'keyword', q: 'translate ui text with plurals', best: ['i18n-js'] },
  { kind: 'keyword', q: 'revenue over time graph', best: ['charts-d3'] },
  { kind: 'keyword', q: 'short urls with analytics', best: ['url-short-go'] },
  { kind: 'keyword', q: 'weak passphrase meter', best: ['pwd-strength-js'] },
  { kind: 'keyword', q: 'country of a visitor', best: ['geoip-go'] },
  { kind: 'keyword', q: 'cliff unlock for team tokens', best: ['erc20-vesting'] },
  { kind: 'keyword', q: 'parts about to run out', best: ['inventory-go'] },
  { kind: 'keyword', q: 'mute raiders and spammers', best: ['discord-mod-ts'] },
  { kind: 'keyword', q: 'same client entered twice', best: ['dedupe-py'] },

  // ---- paraphrase: a task in the buyer's own words ----
  // the rate limiters and the outbound pacer
  {
    kind: 'paraphrase',
    q: "stop one customer's program from flooding our node backend with calls",
    best: ['rl-express'],
  },
  {
    kind: 'paraphrase',
    q: 'each signed-in user may make so many calls an hour; refuse the rest and tell them how many are left',
    best: ['rl-fastapi'],
    ok: ['rl-express'],
  },
  {
    kind: 'paraphrase',
    q: 'even out sudden spikes of traffic from each visitor so the server stays calm',
    best: ['rl-go'],
    ok: ['rl-express'],
  },
  {
    kind: 'paraphrase',
    q: 'lock out addresses that keep guessing passwords on our sign-in form for a while',
    best: ['rl-rails'],
  },
  {
    kind: 'paraphrase',
    q: "we keep getting banned by a partner's service for hitting it too often from our own workers",
    best: ['pacer-py'],
  },
  {
    kind: 'paraphrase',
    q: 'how do I make my integration respect the 60 per minute cap a vendor puts on us?',
    best: ['pacer-py'],
  },
  {
    kind: 'paraphrase',
    q: 'bots are hammering the site from a handful of addresses but our office must never be blocked',
    best: ['rl-rails'],
  },
  // the scrapers
  {
    kind: 'paraphrase',
    q: 'grab what rival shops charge for each item and whether it is sold out, every morning',
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: 'walk through every link on our domain and list the ones that return errors',
    best: ['crawl-go'],
  },
  {
    kind: 'paraphrase',
    q: 'turn the front pages of a few papers into a feed I can follow in my reader',
    best: ['scrape-news-node'],
  },
  {
    kind: 'paraphrase',
    q: 'gather open vacancies from several hiring websites every night, skipping ones already seen',
    best: ['scrape-jobs-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'give search engines a map of all the pages we have',
    best: ['crawl-go'],
  },
  {
    kind: 'paraphrase',
    q: 'the numbers we need are stuck in grids inside quarterly report documents; get them into a spreadsheet',
    best: ['pdf-tables-py'],
  },
  // sign-in and access
  {
    kind: 'paraphrase',
    q: 'login service that hands out short-lived tokens and locks the account after too many bad tries',
    best: ['auth-jwt-go'],
  },
  {
    kind: 'paraphrase',
    q: 'let people get into our python web app with the gmail account they already have',
    best: ['auth-oauth-django'],
  },
  {
    kind: 'paraphrase',
    q: 'our users forget their credentials all the time; just email them a one-time way in',
    best: ['auth-magic-express'],
  },
  {
    kind: 'paraphrase',
    q: 'add a second step at login with six digits from the phone',
    best: ['auth-totp-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'only managers may approve refunds through the api, and we must keep a record of who was turned away',
    best: ['auth-rbac-spring'],
  },
  {
    kind: 'paraphrase',
    q: 'give each customer secret credentials for scripted access that we can revoke later',
    best: ['auth-apikey-fastify'],
  },
  {
    kind: 'paraphrase',
    q: 'what do I use to know which client made a call and when they last used their credential?',
    best: ['auth-apikey-fastify'],
  },
  {
    kind: 'paraphrase',
    q: 'tell new users that "summer2024" is far too easy to guess while they type it',
    best: ['pwd-strength-js'],
  },
  // alerting siblings
  {
    kind: 'paraphrase',
    q: 'tell me when the headphones on my wish list get cheaper',
    best: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: 'ping me the moment apple shares go above 200 dollars',
    best: ['stock-alerts-node'],
  },
  {
    kind: 'paraphrase',
    q: 'warn us in team chat before a server runs out of room for files',
    best: ['disk-alert-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'know within a minute when our site is down and show customers a history of outages',
    best: ['uptime-go'],
  },
  {
    kind: 'paraphrase',
    q: 'post a note in our team channel when a deploy fails, but not the same note fifty times',
    best: ['slack-alert-go'],
  },
  {
    kind: 'paraphrase',
    q: 'notice when the app suddenly starts printing a strange error far more often than usual',
    best: ['log-anomaly-py'],
  },
  {
    kind: 'paraphrase',
    q: 'find out about crashes that happen in shoppers’ browsers on our storefront',
    best: ['error-sdk-js'],
  },
  {
    kind: 'paraphrase',
    q: 'see the memory and hit ratio of our cache on the grafana boards we already have',
    best: ['redis-exporter-py'],
  },
  {
    kind: 'paraphrase',
    q: 'get the lines our services write to disk into one central cluster we can query',
    best: ['log-ship-go'],
  },
  // money
  {
    kind: 'paraphrase',
    q: 'let buyers on my little store pay online and use discount coupons',
    best: ['checkout-next'],
  },
  {
    kind: 'paraphrase',
    q: 'charge customers every month for our saas, with a free first fortnight and upgrades mid-cycle',
    best: ['stripe-subs'],
  },
  {
    kind: 'paraphrase',
    q: 'produce printable bills with our logo from each order, tax lines included',
    best: ['invoice-pdf-py'],
  },
  {
    kind: 'paraphrase',
    q: 'jot down what I spend on coffee by texting it to something in my messenger',
    best: ['expense-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: 'plan how much of my paycheck goes to rent, groceries and savings each month',
    best: ['budget-react'],
  },
  {
    kind: 'paraphrase',
    q: 'how much is 50 pounds in yen today, and what was it last march?',
    best: ['fx-convert-go'],
  },
  {
    kind: 'paraphrase',
    q: 'customers want to cancel or change their card themselves without emailing us',
    best: ['stripe-subs'],
  },
  {
    kind: 'paraphrase',
    q: 'will my account go negative before payday if the rent and phone come out?',
    best: ['budget-react'],
  },
  // notifications
  {
    kind: 'paraphrase',
    q: "pop up a message on visitors' desktops even when our tab is closed",
    best: ['webpush-node'],
  },
  {
    kind: 'paraphrase',
    q: 'text customers on their mobiles when the parcel leaves, and honour STOP replies',
    best: ['sms-twilio-py'],
  },
  {
    kind: 'paraphrase',
    q: 'instead of one message per comment, send each member one roundup at breakfast',
    best: ['email-digest-node'],
  },
  {
    kind: 'paraphrase',
    q: 'make our phone app buzz with a new order even when it is not open, with accept and decline buttons',
    best: ['mobile-push-kt'],
  },
  // configuration and secrets
  {
    kind: 'paraphrase',
    q: 'crash at boot with a readable error if a required setting is missing or malformed',
    best: ['env-config-ts'],
    ok: ['yaml-config-py'],
  },
  {
    kind: 'paraphrase',
    q: 'ship the new search to 5 % of people first and switch it off instantly if it misbehaves',
    best: ['flags-go'],
  },
  {
    kind: 'paraphrase',
    q: 'keep the tokens and passwords of each project out of plain text on my laptop',
    best: ['secrets-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'same vim and zsh setup on my laptop and my work machine',
    best: ['dotfiles-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'a defaults file, then per-stage overrides, then local tweaks, all merged and checked',
    best: ['yaml-config-py'],
  },
  // retries and failure
  {
    kind: 'paraphrase',
    q: 'our python scripts fall over whenever a remote server hiccups; have them try again, waiting longer each time',
    best: ['retry-http-py'],
  },
  {
    kind: 'paraphrase',
    q: 'quit calling a dependency that keeps erroring and give it time to recover',
    best: ['breaker-go'],
  },
  {
    kind: 'paraphrase',
    q: 'in the browser, give up on requests that hang and repeat the safe ones that fail',
    best: ['fetch-retry-ts'],
  },
  {
    kind: 'paraphrase',
    q: "tell our customers' servers when something happens on our platform, and keep trying if they are down",
    best: ['webhook-relay-node'],
  },
  // data files and formats
  {
    kind: 'paraphrase',
    q: 'open a 20 gb spreadsheet export without running out of ram, dates recognised',
    best: ['csv-reader-py'],
  },
  {
    kind: 'paraphrase',
    q: 'read and write config objects in a c++ program and point at the exact character where the input is broken',
    best: ['json-parser-cpp'],
  },
  {
    kind: 'paraphrase',
    q: 'shrink huge comma separated dumps into compact columnar files our analysts can query fast',
    best: ['parquet-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'give the finance team a downloadable spreadsheet with totals that recalculate and bold headers',
    best: ['xlsx-node'],
  },
  {
    kind: 'paraphrase',
    q: 'catch mistakes in our deployment manifests before merge, with the line of each problem',
    best: ['yaml-lint-go'],
  },
  {
    kind: 'paraphrase',
    q: 'a partner still sends us soap-era payloads and our frontend only understands plain objects',
    best: ['xml-java'],
  },
  // pictures, audio, video and documents
  {
    kind: 'paraphrase',
    q: 'when a seller uploads photos, make small previews in a few sizes for the listing grid',
    best: ['thumbs-node'],
  },
  {
    kind: 'paraphrase',
    q: 'our product photos make the page slow; cut their weight without them looking worse',
    best: ['img-optimize-py'],
    ok: ['thumbs-node'],
  },
  {
    kind: 'paraphrase',
    q: 'let people upload clips and watch them smoothly on slow connections, with a still as cover',
    best: ['video-transcode-go'],
  },
  {
    kind: 'paraphrase',
    q: 'staff snap their lunch bills and we need the shop, the day and the amount without typing',
    best: ['ocr-receipts-py'],
  },
  {
    kind: 'paraphrase',
    q: 'put the items in our catalogue on a plain white backdrop automatically',
    best: ['bg-remove-py'],
  },
  {
    kind: 'paraphrase',
    q: 'take pages 3 to 7 out of a contract and attach them to another document',
    best: ['pdf-merge-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'write down what was said in our podcast episodes without sending audio to the cloud',
    best: ['speech-text-py'],
  },
  // finding things
  {
    kind: 'paraphrase',
    q: 'people type "iphnoe" in the box on our page and still should see phones, instantly',
    best: ['fuzzy-search-js'],
  },
  {
    kind: 'paraphrase',
    q: 'the crm has "ACME Ltd" and "Acme Limited" as two companies; clean that up',
    best: ['dedupe-py'],
  },
  {
    kind: 'paraphrase',
    q: 'find support articles that mean the same thing as a question even with different wording',
    best: ['vector-search-py'],
    ok: ['faq-bot-py'],
  },
  // jobs and workers
  {
    kind: 'paraphrase',
    q: 'run a cleanup command every night at two, never twice at once, and keep a log of each run',
    best: ['cron-go'],
  },
  {
    kind: 'paraphrase',
    q: 'sending the welcome email makes sign-up slow; do that later, outside the request, and let me watch it',
    best: ['queue-bull-node'],
    ok: ['celery-py'],
  },
  {
    kind: 'paraphrase',
    q: 'spread heavy number crunching over many machines and collect the answers',
    best: ['celery-py'],
  },
  // chat and community
  {
    kind: 'paraphrase',
    q: 'keep our gaming community server clean of scam links and give roles when people react',
    best: ['discord-mod-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'answer the common shopper questions on our site from the help pages and pass hard ones to staff',
    best: ['faq-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: 'people in the same group see each other’s messages live and who is online',
    best: ['ws-chat-node'],
  },
  {
    kind: 'paraphrase',
    q: 'junk posts selling pills keep appearing under our articles',
    best: ['spam-filter-py'],
  },
  // infrastructure and development
  {
    kind: 'paraphrase',
    q: 'copy our database somewhere safe every night and keep a year of monthly copies',
    best: ['pg-backup-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'stand up container hosting on amazon with nodes that grow and shrink, nothing exposed to the internet',
    best: ['tf-k8s'],
  },
  {
    kind: 'paraphrase',
    q: 'our repo holds twenty packages and every push rebuilds all of them; only test what changed',
    best: ['ci-actions'],
  },
  {
    kind: 'paraphrase',
    q: 'apply database changes in order on deploy without two servers doing it at once',
    best: ['migrate-go'],
  },
  {
    kind: 'paraphrase',
    q: 'how many users can our checkout endpoint take before it slows down?',
    best: ['load-test-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'rebuild and rerun my program by itself whenever I hit ctrl-s',
    best: ['file-watch-go'],
  },
  {
    kind: 'paraphrase',
    q: 'make the long select statements in our codebase readable with consistent indentation',
    best: ['sql-format-ts'],
  },
  // front end
  {
    kind: 'paraphrase',
    q: 'back-office screens for our staff with a side menu, tables they can sort and a night theme',
    best: ['admin-react'],
  },
  {
    kind: 'paraphrase',
    q: 'show a message under each input that is wrong, and check the username is free while they fill it in',
    best: ['forms-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'offer our app in german and polish, with correct wording for one item versus many',
    best: ['i18n-js'],
  },
  {
    kind: 'paraphrase',
    q: 'let the boss zoom into last quarter’s turnover and hover for exact figures',
    best: ['charts-d3'],
  },
  {
    kind: 'paraphrase',
    q: 'a one-pager to launch our product with plans and prices, quotes from happy users and a signup box',
    best: ['landing-vue'],
  },
  {
    kind: 'paraphrase',
    q: 'put my writing online as plain html files from notes I keep in text files',
    best: ['blog-md-py'],
  },
  // small tools
  {
    kind: 'paraphrase',
    q: 'turn long tracking addresses into tiny ones for print and see which countries open them',
    best: ['url-short-go'],
  },
  {
    kind: 'paraphrase',
    q: 'work out where in the world each shopper is browsing from, to pick the shipping options',
    best: ['geoip-go'],
  },
  {
    kind: 'paraphrase',
    q: 'guests at the café should join the wifi by pointing their camera at a sign',
    best: ['qr-py'],
  },
  {
    kind: 'paraphrase',
    q: 'will it rain in lisbon this weekend? show it in our app, hour by hour',
    best: ['weather-py'],
  },
  {
    kind: 'paraphrase',
    q: 'what are buyers unhappy about in the thousands of star ratings and comments we got?',
    best: ['sentiment-py'],
  },
  {
    kind: 'paraphrase',
    q: 'my work meetings and my personal appointments live in two different apps; mirror them both ways',
    best: ['calendar-sync-py'],
  },
  {
    kind: 'paraphrase',
    q: 'something fun to play in the shell while the build runs',
    best: ['snake-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'print a fresh number puzzle for the newspaper each day, easy to fiendish, and check it has an answer',
    best: ['sudoku-py'],
  },
  {
    kind: 'paraphrase',
    q: 'founders get their coins bit by bit over four years, and we can take back what has not been released',
    best: ['erc20-vesting'],
  },
  {
    kind: 'paraphrase',
    q: 'know how many boxes of each part sit on which shelf and get a warning before we run out',
    best: ['inventory-go'],
  },
  // effects only, everyday words, siblings close by
  {
    kind: 'paraphrase',
    q: 'people keep losing their bank login text codes abroad; let them use an app instead and print spares',
    best: ['auth-totp-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'the photos shoppers upload of their lunch bills are crooked and blurry; still read the total',
    best: ['ocr-receipts-py'],
  },
  {
    kind: 'paraphrase',
    q: 'our team chat should hear about it when a machine is nearly full, from a plain shell script',
    best: ['disk-alert-sh'],
    ok: ['slack-alert-go'],
  },
  {
    kind: 'paraphrase',
    q: 'I trade on the side and want a nudge the second a share crosses a level I set',
    best: ['stock-alerts-node'],
  },
  {
    kind: 'paraphrase',
    q: 'our bills to clients must show three currencies and page numbers',
    best: ['invoice-pdf-py'],
  },
  {
    kind: 'paraphrase',
    q: 'what did I blow my money on last month? show categories in a chart, from my chat history',
    best: ['expense-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: 'an endpoint of ours is flaky and our little nightly program gives up on the first failure',
    best: ['retry-http-py', 'fetch-retry-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'one slow upstream takes our whole system down with it; fail fast while it is sick',
    best: ['breaker-go'],
  },
  {
    kind: 'paraphrase',
    q: 'we want to know if a deploy made the app throw more in customers’ tabs, with errors bundled by cause',
    best: ['error-sdk-js'],
  },
  {
    kind: 'paraphrase',
    q: 'when one address floods us, slow only that one down and keep serving everyone else at a steady pace',
    best: ['rl-go'],
    ok: ['rl-express', 'rl-rails'],
  },

  // ---- stack: names a language, framework or runtime; the wanted listing is in it ----
  {
    kind: 'stack',
    q: 'rust command to stitch scanned documents together and pull out a few pages',
    best: ['pdf-merge-rs'],
  },
  {
    kind: 'stack',
    q: "python helper so our workers never exceed a partner's allowance of 100 hits a minute",
    best: ['pacer-py'],
  },
  {
    kind: 'stack',
    q: 'go wrapper that smooths out per-visitor spikes before they reach the handlers',
    best: ['rl-go'],
  },
  {
    kind: 'stack',
    q: 'fastapi: cap how often each logged-in account may call us',
    best: ['rl-fastapi'],
  },
  {
    kind: 'stack',
    q: 'express app answering 429 to noisy callers, keyed by their ip',
    best: ['rl-express'],
  },
  {
    kind: 'stack',
    q: 'ruby on rails: ban visitors for a while after failed logins',
    best: ['rl-rails'],
  },
  {
    kind: 'stack',
    q: "node script that pulls today's top stories from a few papers into rss",
    best: ['scrape-news-node'],
  },
  {
    kind: 'stack',
    q: 'rust program to gather vacancies from hiring sites into sqlite on a timer',
    best: ['scrape-jobs-rs'],
  },
  {
    kind: 'stack',
    q: 'go spider that walks a whole domain and obeys robots rules',
    best: ['crawl-go'],
  },
  {
    kind: 'stack',
    q: 'python browser automation to read prices and availability off online stores',
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  {
    kind: 'stack',
    q: 'kotlin: show alerts with buttons on phones when the app is closed',
    best: ['mobile-push-kt'],
  },
  {
    kind: 'stack',
    q: 'java: turn a partner’s soap-style documents into objects our frontend reads',
    best: ['xml-java'],
  },
  {
    kind: 'stack',
    q: 'c++ single header to read and write api payloads, reporting the exact spot of bad input',
    best: ['json-parser-cpp'],
  },
  {
    kind: 'stack',
    q: 'rust: turn big comma separated dumps into columnar files for spark',
    best: ['parquet-rs'],
  },
  {
    kind: 'stack',
    q: 'node: produce a spreadsheet with formulas and several tabs for accounting',
    best: ['xlsx-node'],
  },
  {
    kind: 'stack',
    q: 'go: check our kubernetes manifests against a spec, printing line and column of mistakes',
    best: ['yaml-lint-go'],
  },
  {
    kind: 'stack',
    q: 'python: lift the person out of a portrait onto a see-through layer',
    best: ['bg-remove-py'],
  },
  {
    kind: 'stack',
    q: 'go service turning uploaded clips into adaptive streams at several qualities',
    best: ['video-transcode-go'],
  },
  {
    kind: 'stack',
    q: 'java: only admins may call certain endpoints, and log refusals',
    best: ['auth-rbac-spring'],
  },
  {
    kind: 'stack',
    q: 'rust: a second login step where people type the number their phone shows, plus spares for lost phones',
    best: ['auth-totp-rs'],
  },
  {
    kind: 'stack',
    q: 'go sign-in backend with bearer credentials that expire quickly, users kept in postgres',
    best: ['auth-jwt-go'],
  },
  {
    kind: 'stack',
    q: 'typescript express: email a one-click login instead of asking for a password',
    best: ['auth-magic-express'],
  },
  {
    kind: 'stack',
    q: 'fastify backend handing out revocable credentials to customers for our endpoints',
    best: ['auth-apikey-fastify'],
  },
  {
    kind: 'stack',
    q: 'bash: ping our chat when a partition is nearly out of room',
    best: ['disk-alert-sh'],
  },
  {
    kind: 'stack',
    q: 'go: post formatted messages to our team channel from any script, muted at night',
    best: ['slack-alert-go'],
  },
  {
    kind: 'stack',
    q: 'typescript: tell people which sign-up box they filled wrongly, including a server-side look-up that the name is free',
    best: ['forms-ts'],
  },
  {
    kind: 'stack',
    q: 'vue marketing site for a product launch with plans and testimonials',
    best: ['landing-vue'],
  },
  {
    kind: 'stack',
    q: 'go: kick off a shell command at 2am each night, kill it if it hangs, and keep a record of past ones',
    best: ['cron-go'],
  },
  {
    kind: 'stack',
    q: 'rust: a little retro arcade pastime playable in a shell window',
    best: ['snake-rs'],
  },
  {
    kind: 'stack',
    q: 'solidity: release team tokens monthly after a one-year wait, owner can revoke',
    best: ['erc20-vesting'],
  },
  {
    kind: 'stack',
    q: 'python: push heavy computations out to a pool of machines through a message broker',
    best: ['celery-py'],
  },
  {
    kind: 'stack',
    q: 'node: hand slow chores off the web handler, some urgent, some postponed, and show how far along each is',
    best: ['queue-bull-node'],
  },

  // ---- long: two to four sentences of context ----
  {
    kind: 'long',
    q: 'We are a three-person team running a small api in node. Last week one customer wrote a loop that sent us forty thousand calls in an hour and everyone else timed out. We want that customer slowed down politely, with a hint of when to come back.',
    best: ['rl-express'],
  },
  {
    kind: 'long',
    q: 'Our python data pipeline pulls from a vendor that allows 300 requests a minute across the whole account. We run eight worker processes and each thinks it has the budget to itself, so we get locked out by lunchtime. Something has to share one allowance between them.',
    best: ['pacer-py'],
  },
  {
    kind: 'long',
    q: 'Our rails shop gets credential-stuffing waves on the login form every weekend. We would like attackers shut out for a while after a few failures, without ever blocking our own monitoring hosts.',
    best: ['rl-rails'],
  },
  {
    kind: 'long',
    q: 'My wife runs a small online clothes store and wants to know what three rival stores charge for similar dresses, and when they sell out. She works in spreadsheets only. A weekly file would be plenty.',
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  {
    kind: 'long',
    q: 'We just migrated our marketing site to a new CMS and suspect a lot of old internal links now lead nowhere. We have about ten thousand pages. Please also give google a fresh map of what exists.',
    best: ['crawl-go'],
  },
  {
    kind: 'long',
    q: 'Our bank wants staff logins to need more than a password by the end of the quarter. SMS is out because of SIM swaps. The backend is rust and we want people to scan something with their phone once and then type a short number.',
    best: ['auth-totp-rs'],
  },
  {
    kind: 'long',
    q: 'I saw a coat I like but it costs too much right now. I would like something that checks the shop once a day and writes to me when it falls under 120 euros. Nothing fancy, I can run a python script on my raspberry pi.',
    best: ['price-watch-py'],
  },
  {
    kind: 'long',
    q: 'We sell a design tool as a monthly or yearly plan, with a 14 day trial. People switch plans mid-month and expect to pay the difference only. Our api runs on fastify and postgres.',
    best: ['stripe-subs'],
  },
  {
    kind: 'long',
    q: 'Our accountant asks for a proper document for every order we ship, with our branding and VAT shown. Orders already exist as json in our system. We sell abroad, so amounts come in several currencies.',
    best: ['invoice-pdf-py'],
  },
  {
    kind: 'long',
    q: 'At 3am last Sunday our main server stopped because the volume filled up with old build artifacts. Nobody noticed until customers complained. We only want a shell script in cron and a message in our chat next time.',
    best: ['disk-alert-sh'],
  },
  {
    kind: 'long',
    q: 'We have outages nobody sees until Twitter does. Management wants a site customers can visit that says whether we are up and lists past incidents. Probing every minute would be fine.',
    best: ['uptime-go'],
  },
  {
    kind: 'long',
    q: 'Our payments backend depends on a fraud-check provider that sometimes goes dark for minutes. When it does, our threads pile up waiting and the whole go program falls over. We would rather stop asking for a while and try again later.',
    best: ['breaker-go'],
  },
  {
    kind: 'long',
    q: 'We let customers subscribe to events in our platform with a url. Their endpoints are often down for deploys, and they complain they missed orders. They also want to see what we sent and when.',
    best: ['webhook-relay-node'],
  },
  {
    kind: 'long',
    q: 'We run a marketplace where sellers upload huge phone pictures straight from the camera. The listing grid loads slowly and our storage bill keeps growing. We need small previews in webp made after upload, kept in our bucket.',
    best: ['thumbs-node'],
    ok: ['img-optimize-py'],
  },
  {
    kind: 'long',
    q: 'Our finance team reimburses travel costs and people send pictures of their slips by chat. Typing merchant, date and amount by hand takes a day a month. Can a program do it from the photos?',
    best: ['ocr-receipts-py'],
  },
  {
    kind: 'long',
    q: 'We record every customer interview and researchers then spend hours writing them up. Legal says the audio must not leave our machines. Timestamps would help when quoting.',
    best: ['speech-text-py'],
  },
  {
    kind: 'long',
    q: 'Three sales teams entered the same clients in their own ways over five years, so our crm has "J. Smith, Acme" and "John Smith, ACME Inc." as separate people. Before the migration we want one row per real client.',
    best: ['dedupe-py'],
  },
  {
    kind: 'long',
    q: 'Our signup handler sends a welcome email, builds a pdf and resizes an avatar before answering, and it takes eight seconds. We run node with redis already. I want that work handed off and a page to see what is stuck.',
    best: ['queue-bull-node'],
  },
  {
    kind: 'long',
    q: 'We run a hobby community of 20,000 people and volunteers cannot keep up with raids of scam links at night. A helper that deletes floods and silences the senders, and logs what it did, would save us.',
    best: ['discord-mod-ts'],
  },
  {
    kind: 'long',
    q: 'Our help inbox gets the same twenty questions all day about delivery times and returns. We already wrote help articles for them. We want something on the site that answers from those and hands over to a person when it is not sure.',
    best: ['faq-bot-py'],
  },
  {
    kind: 'long',
    q: 'Our only copy of the production database is on the database server itself, which scares me. The ops budget is tiny so a cron job is fine. Keep a month of nightly copies and a year of monthly ones, encrypted, in amazon storage.',
    best: ['pg-backup-sh'],
  },
  {
    kind: 'long',
    q: 'We are launching a new app in spring and the designer is on leave. We need a single-scroll site with a big headline, the prices, a few customer quotes and a field to join the mailing list. The team knows vue.',
    best: ['landing-vue'],
  },
  {
    kind: 'long',
    q: 'Our product team wants to try a redesigned checkout on a small slice of customers before everyone gets it. If conversion drops they want to turn it off without a deploy. Some big accounts should always see it.',
    best: ['flags-go'],
  },
  {
    kind: 'long',
    q: 'We are a shop with a single stockroom and three shelves of spare parts. Twice this year we promised a part we did not have. We want counts per shelf, a trail of what moved, and a heads-up when something is nearly gone.',
    best: ['inventory-go'],
  },
];
