import type { RelevanceQuery } from './relevance-set.js';

/**
 * Stop 44's tuning-only set (issue 30): 78 buyer task descriptions over 45 listings (two for 33) of
 * the paraphrase set's catalogue (relevance-paraphrase-set.ts, PARAPHRASE_LISTINGS), so that a
 * lever tuned on the tuning side sees the same need said more than one way. Like stop 43's tasks
 * set it is all tuning: no held-out half, never a goal figure.
 *
 * Written at stop 44, 2026-11-27, before any ranking change was tried on it and before the current
 * build was run on it, from the catalogue's listings only: without opening any set's held-out
 * queries, the held-out misses quoted in docs/search-meaning.md, the fresh set, nor the task
 * lexicon. Each query says what the buyer wants done in a buyer's words, avoiding the wanted
 * listing's title and stack words (checked by test/unit/relevance-paraphrase-set.test.ts) and, as
 * far as a natural sentence allows, its description's key terms. `best`: the listings that do
 * what was asked; `ok`: close ones that do part of it.
 *
 * Rules for editing: add freely; never edit a query after a reading (write a new one instead).
 */
export const BUYER_QUERIES: RelevanceQuery[] = [
  // ---- request limiting ----
  {
    kind: 'stack',
    q: 'even out sudden floods of traffic from any one visitor so nobody can overwhelm my go service',
    best: ['rl-go'],
    ok: ['rl-express', 'rl-fastapi', 'rl-rails'],
  },
  {
    kind: 'paraphrase',
    q: 'one misbehaving script sends thousands of hits a second to my golang backend; slow it down gracefully',
    best: ['rl-go'],
    ok: ['rl-express', 'rl-fastapi', 'rl-rails'],
  },
  {
    kind: 'stack',
    q: 'temporarily ban addresses that keep guessing passwords on my ruby site',
    best: ['rl-rails'],
    ok: ['auth-jwt-go'],
  },
  {
    kind: 'paraphrase',
    q: 'shut out visitors who fire off far too many hits, but never our own trusted office machines',
    best: ['rl-rails'],
    ok: ['rl-express', 'rl-fastapi', 'rl-go'],
  },
  {
    kind: 'paraphrase',
    q: "my scripts keep getting told to slow down by a partner's service; keep my outgoing requests within what they allow",
    best: ['pacer-py'],
    ok: ['retry-http-py'],
  },
  {
    kind: 'paraphrase',
    q: 'several worker processes share one allowance with an outside provider; coordinate how fast they all hit it',
    best: ['pacer-py'],
  },
  // ---- collecting from the web ----
  {
    kind: 'paraphrase',
    q: 'visit all pages of our site and produce the file that tells search engines which pages exist',
    best: ['crawl-go'],
  },
  {
    kind: 'paraphrase',
    q: 'audit our corporate site for hyperlinks that lead nowhere',
    best: ['crawl-go'],
  },
  {
    kind: 'paraphrase',
    q: 'grab what the main papers are reporting today and give me one feed of it',
    best: ['scrape-news-node'],
  },
  {
    kind: 'paraphrase',
    q: "keep a list of today's front-page story titles from a few media outlets",
    best: ['scrape-news-node'],
  },
  {
    kind: 'paraphrase',
    q: 'pull new vacancies from recruitment portals every night and store each only once',
    best: ['scrape-jobs-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'compare pay and location of developer positions advertised on several career sites',
    best: ['scrape-jobs-rs'],
  },
  {
    kind: 'paraphrase',
    q: "check which items are sold out on a competitor's online store every morning",
    best: ['scrape-shop-py'],
    ok: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: "copy the names and costs of all goods on a retailer's website into a sheet",
    best: ['scrape-shop-py'],
  },
  {
    kind: 'paraphrase',
    q: 'my bank sends statements as printable documents; I need the transaction rows as a dataset',
    best: ['pdf-tables-py'],
    ok: ['ocr-receipts-py'],
  },
  {
    kind: 'stack',
    q: 'pull the numeric grids out of annual accounts documents into pandas',
    best: ['pdf-tables-py'],
  },
  // ---- signing in and access ----
  {
    kind: 'stack',
    q: 'let people join my python site with an account they already have at a big provider instead of a new password',
    best: ['auth-oauth-django'],
  },
  {
    kind: 'paraphrase',
    q: "connect visitors' existing accounts on big platforms to their profile on my web app",
    best: ['auth-oauth-django'],
  },
  {
    kind: 'paraphrase',
    q: 'users get in by clicking something we mail them, with nothing to remember',
    best: ['auth-magic-express'],
  },
  {
    kind: 'paraphrase',
    q: 'drop passwords entirely and sign people in through their inbox',
    best: ['auth-magic-express'],
  },
  {
    kind: 'paraphrase',
    q: 'after the password, also ask for the changing number shown in a phone app',
    best: ['auth-totp-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'add a second step to logging in with rotating codes on the phone, plus spare recovery codes',
    best: ['auth-totp-rs'],
  },
  {
    kind: 'stack',
    q: 'only managers may approve refunds and clerks may only view them: restrict endpoints by job title in my java backend',
    best: ['auth-rbac-spring'],
  },
  {
    kind: 'paraphrase',
    q: 'decide who is allowed to do what in my backend, and record attempts to do things they may not',
    best: ['auth-rbac-spring'],
  },
  {
    kind: 'paraphrase',
    q: 'give partners credentials for calling our platform programmatically, and let them cancel a leaked one',
    best: ['auth-apikey-fastify'],
  },
  {
    kind: 'paraphrase',
    q: 'see when each integration credential was last used and limit what each one may do',
    best: ['auth-apikey-fastify'],
  },
  // ---- money ----
  {
    kind: 'paraphrase',
    q: "tell me when the gadget I'm eyeing goes on sale at the shops I follow",
    best: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: "keep an eye on a few shop items and message me once they cost less than what I'm willing to pay",
    best: ['price-watch-py'],
  },
  {
    kind: 'paraphrase',
    q: "ping me when a company's shares go above or below a certain value",
    best: ['stock-alerts-node'],
  },
  {
    kind: 'paraphrase',
    q: "notify me the moment a listed company's quote crosses my target",
    best: ['stock-alerts-node'],
  },
  {
    kind: 'paraphrase',
    q: "show prices in euros, yen or dollars at today's official values",
    best: ['fx-convert-go'],
  },
  {
    kind: 'paraphrase',
    q: 'what was a dollar worth in pounds on a given day last year',
    best: ['fx-convert-go'],
  },
  {
    kind: 'paraphrase',
    q: 'charge customers every month, with free trial periods and plan upgrades',
    best: ['stripe-subs'],
  },
  {
    kind: 'paraphrase',
    q: 'recurring membership fees, with a page where each customer manages their plan',
    best: ['stripe-subs'],
  },
  {
    kind: 'paraphrase',
    q: 'produce printable bills with our logo, tax lines and totals from order data',
    best: ['invoice-pdf-py'],
  },
  {
    kind: 'paraphrase',
    q: 'turn each order into a nicely laid out bill to attach to the confirmation mail',
    best: ['invoice-pdf-py'],
  },
  {
    kind: 'paraphrase',
    q: "message my phone's chat app what I paid for lunch and get a breakdown each month",
    best: ['expense-bot-py'],
    ok: ['budget-react'],
  },
  {
    kind: 'paraphrase',
    q: 'record my spending by chatting with an assistant in a messenger',
    best: ['expense-bot-py'],
    ok: ['budget-react'],
  },
  {
    kind: 'paraphrase',
    q: 'decide in advance how my monthly pay is divided between housing, groceries and putting money aside',
    best: ['budget-react'],
  },
  {
    kind: 'paraphrase',
    q: 'see ahead whether my bank account will dip into the red after the regular bills',
    best: ['budget-react'],
  },
  // ---- operations ----
  {
    kind: 'paraphrase',
    q: 'figure out what our normal application output looks like and warn us about strange new error messages',
    best: ['log-anomaly-py'],
  },
  {
    kind: 'paraphrase',
    q: "a trained model that spots abnormal bursts in our services' diagnostic output",
    best: ['log-anomaly-py'],
  },
  {
    kind: 'paraphrase',
    q: 'send the lines our services write to disk into a central search cluster',
    best: ['log-ship-go'],
  },
  {
    kind: 'paraphrase',
    q: 'gather text output from many machines into one place we can query, without losing lines when the network drops',
    best: ['log-ship-go'],
  },
  {
    kind: 'paraphrase',
    q: 'every minute make sure our site answers, and show customers a list of outages',
    best: ['uptime-go'],
  },
  {
    kind: 'paraphrase',
    q: 'track how fast our endpoints respond and publish the incident history',
    best: ['uptime-go'],
  },
  {
    kind: 'paraphrase',
    q: "collect the crashes happening in users' browsers and bundle identical ones together",
    best: ['error-sdk-js'],
  },
  {
    kind: 'paraphrase',
    q: 'find out which front-end bugs our customers hit, with the traces',
    best: ['error-sdk-js'],
  },
  {
    kind: 'paraphrase',
    q: "warn our team chat when a server's drive is almost full",
    best: ['disk-alert-sh'],
    ok: ['slack-alert-go'],
  },
  {
    kind: 'stack',
    q: 'a shell script run from cron that checks the free room left on every partition',
    best: ['disk-alert-sh'],
  },
  // ---- messages to people ----
  {
    kind: 'paraphrase',
    q: "pop up messages in visitors' desktop browsers even when my site is not open",
    best: ['webpush-node'],
  },
  {
    kind: 'paraphrase',
    q: 'let readers of my blog subscribe to alerts that appear on their screen when I publish',
    best: ['webpush-node'],
  },
  {
    kind: 'paraphrase',
    q: "send order confirmations to customers' mobile numbers as short texts",
    best: ['sms-twilio-py'],
  },
  {
    kind: 'paraphrase',
    q: "message people's phones from templates and respect it when they reply STOP",
    best: ['sms-twilio-py'],
  },
  {
    kind: 'paraphrase',
    q: 'instead of one message per event, send each user a single roundup every morning',
    best: ['email-digest-node'],
  },
  {
    kind: 'paraphrase',
    q: "batch a day's notifications into one summary per person",
    best: ['email-digest-node'],
  },
  {
    kind: 'paraphrase',
    q: 'post warnings from our scripts into a team channel, without repeats and quiet at night',
    best: ['slack-alert-go'],
  },
  {
    kind: 'stack',
    q: "make our kotlin app's users' handsets buzz with news even when the app is closed",
    best: ['mobile-push-kt'],
  },
  // ---- settings and secrets ----
  {
    kind: 'paraphrase',
    q: 'refuse to boot if a required setting is missing or malformed, with a clear explanation',
    best: ['env-config-ts'],
    ok: ['yaml-config-py'],
  },
  {
    kind: 'paraphrase',
    q: 'release a new screen to a tenth of our customers first, with an instant off switch',
    best: ['flags-go'],
  },
  {
    kind: 'paraphrase',
    q: 'let product managers enable experimental functionality per account without a deploy',
    best: ['flags-go'],
  },
  {
    kind: 'paraphrase',
    q: 'keep our tokens and passwords out of the repository in a locked file and hand them to commands at run time',
    best: ['secrets-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'store credentials per project, scrambled, and inject them into the shell when running a program',
    best: ['secrets-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'the same shell and editor preferences on my laptop and my work machine',
    best: ['dotfiles-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'back up my terminal customisations and restore them on a new computer',
    best: ['dotfiles-sh'],
  },
  {
    kind: 'stack',
    q: 'merge default settings with per-environment overrides in python',
    best: ['yaml-config-py'],
    ok: ['env-config-ts'],
  },
  // ---- calling other services ----
  {
    kind: 'stack',
    q: 'my python calls to other services fail now and then on a flaky network; attempt them again with growing pauses',
    best: ['retry-http-py'],
    ok: ['pacer-py'],
  },
  {
    kind: 'paraphrase',
    q: 'stop sending calls to a dependency that keeps erroring and probe it again after a while',
    best: ['breaker-go'],
  },
  {
    kind: 'stack',
    q: 'protect my golang backend from a dead downstream by failing fast for a while',
    best: ['breaker-go'],
  },
  {
    kind: 'paraphrase',
    q: "notify our customers' servers when their orders change, and keep re-sending until they accept",
    best: ['webhook-relay-node'],
  },
  {
    kind: 'paraphrase',
    q: 'signed outgoing event callbacks to client endpoints, with a log of what reached whom',
    best: ['webhook-relay-node'],
  },
  // ---- jobs and infrastructure ----
  {
    kind: 'paraphrase',
    q: 'run a command every night at 2am and never start a second copy while the first is still going',
    best: ['cron-go'],
  },
  {
    kind: 'long',
    q: 'Our Express request handlers send emails and resize uploads inline, so pages hang. We want that slow work moved to separate processes, with a web page to watch its progress.',
    best: ['queue-bull-node'],
    ok: ['celery-py'],
  },
  {
    kind: 'paraphrase',
    q: 'dump our postgres database every night, lock it with a key and keep a month of copies in the cloud',
    best: ['pg-backup-sh'],
  },
  {
    kind: 'paraphrase',
    q: 'only compile and check the packages that changed in our big repository on every push',
    best: ['ci-actions'],
  },
  {
    kind: 'paraphrase',
    q: 'apply database structure changes in order during deploys without two servers racing',
    best: ['migrate-go'],
  },
  {
    kind: 'paraphrase',
    q: 'find out how many requests a second my service can take before it slows down',
    best: ['load-test-rs'],
  },
  {
    kind: 'paraphrase',
    q: 'restart my program automatically whenever I save my code',
    best: ['file-watch-go'],
  },
];

/**
 * Which phrasing of its listing's need a query is: `first` (the first query in this file wanting
 * that listing first) or `second`. Lexicon entries written from the first phrasings' misses are
 * read on the second ones: whether an entry carries to another wording of the same need, inside
 * tuning data.
 */
export function buyerPhrasing(q: Pick<RelevanceQuery, 'q'>): 'first' | 'second' {
  const i = BUYER_QUERIES.findIndex((x) => x.q === q.q);
  if (i < 0) throw new Error(`not a buyer set query: ${q.q}`);
  const wanted = BUYER_QUERIES[i]!.best[0];
  return BUYER_QUERIES.slice(0, i).some((x) => x.best[0] === wanted) ? 'second' : 'first';
}
