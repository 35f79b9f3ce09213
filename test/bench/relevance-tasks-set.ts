import type { RelevanceQuery } from './relevance-set.js';

/**
 * Stop 43's tuning-only set (issue 30): task descriptions in a buyer's own words over the
 * paraphrase set's catalogue (relevance-paraphrase-set.ts, PARAPHRASE_LISTINGS). The paraphrase
 * set's and issue 11's tuning halves were nearly saturated (0.933 and 0.986 hit@1), so they said
 * little about a new lever; this set gives the tuning side more queries to learn from. It is all
 * tuning: no held-out half, never a goal figure. A lever tuned here must still pass stop 40's gate
 * on the other sets' tuning halves, and the held-out halves decide whether it ships.
 *
 * Written at stop 43, 2026-11-27, before any ranking change was tried on it, from the catalogue's
 * listings only: without opening any set's held-out queries, nor the held-out misses quoted in
 * docs/search-meaning.md, nor the task lexicon. Each query says what the buyer wants done in
 * words a buyer would use, avoiding the wanted listing's title and stack words (the paraphrase
 * set's rule, checked by test/unit/relevance-paraphrase-set.test.ts) and, as far as a natural
 * sentence allows, its description's key terms too. `best`: the listings that do what was asked;
 * `ok`: close ones that do part of it.
 *
 * Rules for editing: add freely; never edit a query after a reading (write a new one instead).
 */
export const TASK_QUERIES: RelevanceQuery[] = [
  // ---- request limiting ----
  {
    kind: 'paraphrase',
    q: 'one noisy customer keeps swamping my public endpoints; hold every caller to a fair share',
    best: ['rl-express', 'rl-fastapi', 'rl-go', 'rl-rails'],
  },
  {
    kind: 'stack',
    q: 'python web backend: refuse callers once they have used up what they may send this minute',
    best: ['rl-fastapi'],
    ok: ['rl-express', 'rl-go', 'rl-rails'],
  },
  {
    kind: 'paraphrase',
    q: 'a vendor blocks my nightly sync job for hitting them too fast; space out what I send them',
    best: ['pacer-py'],
    ok: ['retry-http-py'],
  },
  {
    kind: 'long',
    q: 'We run a marketplace backend on Express. A few partners call it so often that everyone else slows down. Each partner should get a fixed number of calls and be told to come back later when over it.',
    best: ['rl-express'],
    ok: ['rl-fastapi', 'rl-go', 'rl-rails'],
  },
  // ---- collecting from the web ----
  {
    kind: 'paraphrase',
    q: 'collect what online stores charge for items and whether they are sold out, into a spreadsheet',
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: "map every page of my company's site and find the dead ones",
    best: ['crawl-go'],
  },
  {
    kind: 'paraphrase',
    q: "pull the latest article titles from a handful of newspapers' home pages into something my feed reader can follow",
    best: ['scrape-news-node'],
  },
  {
    kind: 'paraphrase',
    q: 'gather vacancies from several hiring websites every day without the same opening twice',
    best: ['scrape-jobs-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'get the grids of numbers out of quarterly report documents so I can analyse them in a notebook',
    best: ['pdf-tables-py'],
  },
  // ---- signing in ----
  {
    kind: 'paraphrase',
    q: 'give my users short-lived login passes and a way to renew them without typing the password again',
    best: ['auth-jwt-go'],
  },
  {
    kind: 'stack',
    q: 'django: let people register with the account they already have elsewhere instead of a new password',
    best: ['auth-oauth-django'],
  },
  {
    kind: 'paraphrase',
    q: 'people get in by clicking something we send to their inbox, no secret to remember',
    best: ['auth-magic-express'],
  },
  {
    kind: 'paraphrase',
    q: 'a second step at login where users type the number their phone app shows',
    best: ['auth-totp-rs'],
  },
  {
    kind: 'stack',
    q: 'java backend: decide which staff members may reach which admin routes',
    best: ['auth-rbac-spring'],
  },
  {
    kind: 'paraphrase',
    q: 'hand customers their own access tokens for calling my backend, limit what each can do, and cancel them when needed',
    best: ['auth-apikey-fastify'],
  },
  // ---- money ----
  {
    kind: 'paraphrase',
    q: "ping me once a gadget I've been eyeing goes on sale below what I want to spend",
    best: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: "get pinged when a company's shares jump past a number I pick",
    best: ['stock-alerts-node'],
  },
  {
    kind: 'paraphrase',
    q: "turn dollars into euros using today's official figures",
    best: ['fx-convert-go'],
  },
  {
    kind: 'stack',
    q: 'next.js storefront: basket, discount codes and paying at the end',
    best: ['checkout-next'],
  },
  {
    kind: 'paraphrase',
    q: 'charge customers every month automatically, with free trials and upgrades in the middle of a cycle',
    best: ['stripe-subs'],
  },
  {
    kind: 'paraphrase',
    q: 'make nice-looking bills for my clients from order data, ready to print',
    best: ['invoice-pdf-py'],
  },
  {
    kind: 'paraphrase',
    q: 'note down every purchase I make by chatting in my messenger app and see monthly totals',
    best: ['expense-bot-py'],
    ok: ['budget-react'],
  },
  {
    kind: 'paraphrase',
    q: 'plan how much of my salary goes to rent, food and savings each month',
    best: ['budget-react'],
    ok: ['expense-bot-py'],
  },
  // ---- watching systems ----
  {
    kind: 'paraphrase',
    q: "a model that spots strange bursts in my application's output messages",
    best: ['log-anomaly-py'],
  },
  {
    kind: 'paraphrase',
    q: 'collect the text my apps write on every machine and push it to one place where I can query it',
    best: ['log-ship-go'],
  },
  {
    kind: 'paraphrase',
    q: "find out right away when my website goes down and let customers see whether it's working",
    best: ['uptime-go'],
  },
  {
    kind: 'paraphrase',
    q: 'graphs of how much memory my cache server uses and how often lookups hit',
    best: ['redis-exporter-py'],
  },
  {
    kind: 'paraphrase',
    q: "find out about crashes happening in visitors' browsers",
    best: ['error-sdk-js'],
  },
  {
    kind: 'paraphrase',
    q: 'warn the team in chat before a server runs out of room for files',
    best: ['disk-alert-sh'],
    ok: ['slack-alert-go'],
  },
  // ---- telling people ----
  {
    kind: 'paraphrase',
    q: "pop up alerts on people's desktops even when my site's tab is closed",
    best: ['webpush-node'],
  },
  {
    kind: 'paraphrase',
    q: 'send customers a short message on their mobile the day before their appointment',
    best: ['sms-twilio-py'],
  },
  {
    kind: 'paraphrase',
    q: 'one summary per user each morning instead of dozens of notes through the day',
    best: ['email-digest-node'],
  },
  {
    kind: 'paraphrase',
    q: 'post a heads-up into our team workspace channel whenever one of my jobs fails',
    best: ['slack-alert-go'],
  },
  {
    kind: 'stack',
    q: 'kotlin: make my app show alerts even when it is closed',
    best: ['mobile-push-kt'],
  },
  {
    kind: 'long',
    q: 'Every time we deploy, the team wants a message in the shared workspace channel, the same for failed scheduled runs, but never ten copies of one message and nothing at night.',
    best: ['slack-alert-go'],
  },
  // ---- settings and secrets ----
  {
    kind: 'paraphrase',
    q: 'stop at startup with a helpful message if a required setting is missing or malformed',
    best: ['env-config-ts'],
    ok: ['yaml-config-py'],
  },
  {
    kind: 'paraphrase',
    q: 'show new functionality to a small slice of users first, and turn it off instantly if it breaks',
    best: ['flags-go'],
  },
  {
    kind: 'paraphrase',
    q: 'keep my passwords and tokens out of the repository but hand them to commands when they run',
    best: ['secrets-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'the same shell and editor setup on my laptop and my desktop',
    best: ['dotfiles-sh'],
  },
  {
    kind: 'stack',
    q: 'python: settings from several files where later ones override earlier ones',
    best: ['yaml-config-py'],
    ok: ['env-config-ts'],
  },
  // ---- failures ----
  {
    kind: 'stack',
    q: 'python calls to flaky third-party endpoints should be tried again with growing pauses',
    best: ['retry-http-py'],
    ok: ['fetch-retry-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'stop sending work to a dependency that is down and give it time to recover',
    best: ['breaker-go'],
  },
  {
    kind: 'paraphrase',
    q: 'browser requests that give up when slow and try once more on their own',
    best: ['fetch-retry-ts'],
    ok: ['retry-http-py'],
  },
  {
    kind: 'paraphrase',
    q: "tell my customers' systems about events and keep sending until they confirm",
    best: ['webhook-relay-node'],
  },
  // ---- data ----
  {
    kind: 'stack',
    q: 'python: go through a giant comma separated export line by line without loading it all',
    best: ['csv-reader-py'],
  },
  {
    kind: 'stack',
    q: 'c++: read api responses into objects and say exactly where malformed input breaks',
    best: ['json-parser-cpp'],
  },
  {
    kind: 'paraphrase',
    q: 'shrink big table exports into a compact column format for our data lake',
    best: ['parquet-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'produce downloadable spreadsheets with formulas for our finance team',
    best: ['xlsx-node'],
  },
  {
    kind: 'paraphrase',
    q: "check my config documents follow the agreed structure and point to the exact line that's wrong",
    best: ['yaml-lint-go'],
  },
  {
    kind: 'stack',
    q: 'java: turn old enterprise markup payloads into objects a modern web frontend reads',
    best: ['xml-java'],
  },
  // ---- media ----
  {
    kind: 'paraphrase',
    q: 'make small preview pictures of whatever users upload and store them back in my bucket',
    best: ['thumbs-node'],
  },
  {
    kind: 'paraphrase',
    q: "make my site's pictures download faster without them looking worse",
    best: ['img-optimize-py'],
  },
  {
    kind: 'paraphrase',
    q: 'let people watch uploaded clips smoothly at whatever quality their connection allows',
    best: ['video-transcode-go'],
  },
  {
    kind: 'paraphrase',
    q: 'snap a till slip with my phone and get the shop, date and amount',
    best: ['ocr-receipts-py'],
  },
  {
    kind: 'paraphrase',
    q: "cut the person out of a picture so what's behind them becomes see-through",
    best: ['bg-remove-py'],
  },
  {
    kind: 'paraphrase',
    q: 'stitch several scanned contracts together into one file from the terminal',
    best: ['pdf-merge-rs'],
  },
  {
    kind: 'paraphrase',
    q: "write down what's said in my podcast episodes, with times",
    best: ['speech-text-py'],
  },
  // ---- finding things ----
  {
    kind: 'paraphrase',
    q: 'a lookup box for my product list that still finds things when people mistype',
    best: ['fuzzy-search-js'],
  },
  {
    kind: 'paraphrase',
    q: 'our crm has the same client entered three times with slightly different names; merge them',
    best: ['dedupe-py'],
  },
  {
    kind: 'paraphrase',
    q: 'find passages close in meaning to a question, kept in our postgres database',
    best: ['vector-search-py'],
  },
  // ---- background work ----
  {
    kind: 'paraphrase',
    q: 'run my cleanup command every night at 2am and never start it while the last one is still going',
    best: ['cron-go'],
  },
  {
    kind: 'paraphrase',
    q: "don't make web visitors wait while we resize and mail things; let something else do it and show me what's pending",
    best: ['queue-bull-node'],
    ok: ['celery-py'],
  },
  {
    kind: 'stack',
    q: 'python: spread heavy number crunching across several machines',
    best: ['celery-py'],
  },
  // ---- communities and support ----
  {
    kind: 'paraphrase',
    q: 'automatically silence people flooding our gaming chat with links',
    best: ['discord-mod-ts'],
    ok: ['spam-filter-py'],
  },
  {
    kind: 'long',
    q: "Our help inbox is drowning in the same twenty questions. Find something that replies to shoppers using the articles we already wrote and passes the chat to a person when it isn't sure.",
    best: ['faq-bot-py'],
  },
  {
    kind: 'paraphrase',
    q: 'players message each other live in separate lobbies',
    best: ['ws-chat-node'],
  },
  // ---- operations ----
  {
    kind: 'paraphrase',
    q: 'copy my database offsite every night and keep a month of copies',
    best: ['pg-backup-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'infrastructure as code for a locked-down container platform on amazon',
    best: ['tf-k8s'],
  },
  {
    kind: 'paraphrase',
    q: 'only rebuild the parts of our big repository that changed when someone pushes',
    best: ['ci-actions'],
  },
  {
    kind: 'paraphrase',
    q: 'apply database structure changes in order during deploys without two servers clashing',
    best: ['migrate-go'],
  },
  {
    kind: 'paraphrase',
    q: 'see how my endpoint holds up when thousands of users hit it at once',
    best: ['load-test-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'restart my dev server every time I save',
    best: ['file-watch-go'],
  },
  // ---- front ends and sites ----
  {
    kind: 'paraphrase',
    q: 'back-office screens with a menu on the side and tables I can sort',
    best: ['admin-react'],
  },
  {
    kind: 'paraphrase',
    q: 'check what people enter into sign-up fields and show what is wrong next to each box',
    best: ['forms-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'show my app in french, german and japanese',
    best: ['i18n-js'],
  },
  {
    kind: 'paraphrase',
    q: 'revenue graphs over time that you can zoom into',
    best: ['charts-d3'],
  },
  {
    kind: 'stack',
    q: 'vue: a marketing site to sell our product, with plans, prices and customer quotes',
    best: ['landing-vue'],
  },
  {
    kind: 'paraphrase',
    q: 'turn long web addresses into tiny ones and count who followed them',
    best: ['url-short-go'],
  },
  {
    kind: 'paraphrase',
    q: 'turn a folder of plain text posts into a personal website I can host anywhere',
    best: ['blog-md-py'],
  },
  {
    kind: 'paraphrase',
    q: 'warn users at sign-up when their chosen secret is too easy to guess',
    best: ['pwd-strength-js'],
  },
  {
    kind: 'paraphrase',
    q: 'filter out junk replies people leave under my blog posts',
    best: ['spam-filter-py'],
    ok: ['discord-mod-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'work out where in the world a request comes from by its numeric address',
    best: ['geoip-go'],
  },
  {
    kind: 'paraphrase',
    q: 'printable black and white squares that open our menu when a phone camera sees them',
    best: ['qr-py'],
  },
  {
    kind: 'paraphrase',
    q: 'will it rain in my city this weekend, for my app',
    best: ['weather-py'],
  },
  {
    kind: 'paraphrase',
    q: 'tidy up messy database statements so they are readable',
    best: ['sql-format-ts'],
  },
  {
    kind: 'paraphrase',
    q: 'tell me whether customers are happy or angry about each item we sell',
    best: ['sentiment-py'],
  },
  {
    kind: 'paraphrase',
    q: 'meetings in my office account should show up in my personal agenda too, and the other way round',
    best: ['calendar-sync-py'],
  },
  {
    kind: 'paraphrase',
    q: 'a little retro arcade thing to play in my console between builds',
    best: ['snake-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'fill in a nine by nine number grid puzzle automatically',
    best: ['sudoku-py'],
  },
  {
    kind: 'paraphrase',
    q: 'lock up team tokens and release them monthly after the first year',
    best: ['erc20-vesting'],
  },
  {
    kind: 'paraphrase',
    q: 'know how many of each product sit on each shelf and get warned before we run out',
    best: ['inventory-go'],
  },
  {
    kind: 'long',
    q: "I'm building a small online store on Next.js and need the part where buyers put things in a basket, enter discount codes and pay at the end.",
    best: ['checkout-next'],
  },
];
