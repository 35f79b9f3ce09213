import { describe, expect, it } from 'vitest';
import { tokenize } from '../../src/embeddings/builtin.js';
import { sharedWordVectors } from '../../src/embeddings/word-vectors.js';
import {
  conceptCoverage,
  listingWords,
  prepareQuery,
  softMatchWords,
} from '../../src/domain/search/soft-match.js';
import {
  conceptEntryWords,
  lexiconConcepts,
  lexiconStems,
  parseTaskLexicon,
  taskLexicon,
} from '../../src/domain/search/task-lexicon.js';

const TASK_LEXICON = Object.fromEntries(taskLexicon().concepts);

const concepts = (text: string) => new Set([...lexiconConcepts(text).values()].flat());

describe('the task-concept lexicon (data)', () => {
  it('is read from its data file: concepts with their entries, and the action concepts', () => {
    const { concepts, actions } = taskLexicon();
    expect(concepts.size).toBeGreaterThanOrEqual(80);
    expect(concepts.get('rate_limit')).toEqual(expect.arrayContaining(['throttle', '429']));
    expect(concepts.get('price_drop')).toContain('cheaper');
    expect([...actions].sort()).toEqual(['parse', 'validate']);
    for (const a of actions) expect(concepts.has(a)).toBe(true);
  });

  it('parses its format and says which line is wrong', () => {
    const lex = parseTaskLexicon(
      '# note\n[retry]\nretry, try again,\n back off\n\n[parse action]\nparse, parser\n',
    );
    expect(Object.fromEntries(lex.concepts)).toEqual({
      retry: ['retry', 'try again', 'back off'],
      parse: ['parse', 'parser'],
    });
    expect([...lex.actions]).toEqual(['parse']);
    expect(() => parseTaskLexicon('throttle\n')).toThrow(/line 1/);
    expect(() => parseTaskLexicon('[a]\nx, y\n[a]\nz')).toThrow(/line 3: a repeated/);
    expect(() => parseTaskLexicon('[Bad Name]\nx')).toThrow(/line 1/);
  });

  it('has only entries that read as words, each once per concept, and no duplicated concept', () => {
    const seen = new Map<string, string>();
    for (const [concept, entries] of Object.entries(TASK_LEXICON)) {
      expect(concept).toMatch(/^[a-z0-9_]+$/);
      expect(entries.length, concept).toBeGreaterThanOrEqual(2);
      const stems = entries.map((e) => lexiconStems(e).join(' '));
      for (const s of stems) expect(s, `${concept}: empty entry`).not.toBe('');
      const key = [...new Set(stems)].sort().join('|');
      expect(seen.get(key), `${concept} repeats ${seen.get(key)}`).toBeUndefined();
      seen.set(key, concept);
    }
  });

  it('leaves out words so common that they would tie unrelated listings', () => {
    // a one-word entry must carry meaning: not a stop word, and not a frequent generic English word
    const wv = sharedWordVectors();
    const generic: string[] = [];
    for (const [concept, entries] of Object.entries(TASK_LEXICON))
      for (const e of entries) {
        const ws = e.split(/[^A-Za-z0-9]+/).filter(Boolean);
        if (ws.length !== 1) continue;
        if (tokenize(e).length === 0) generic.push(`${concept}: ${e} (stop word)`);
        const w = wv.weight(e.toLowerCase());
        if (w !== undefined && w < 0.15) generic.push(`${concept}: ${e} (weight ${w.toFixed(2)})`);
      }
    expect(generic).toEqual([]);
  });

  it('reads phrases with their small words: "log in" is signing in, "logs" is logging', () => {
    expect(concepts('let people log in')).toContain('t:sign_in');
    expect(concepts('ship the logs')).not.toContain('t:sign_in');
    expect(concepts('try again on failure')).toContain('t:retry');
    expect(concepts('try the new editor')).not.toContain('t:retry');
    expect(concepts('tell me when it gets cheaper')).toEqual(new Set(['t:notify', 't:price_drop']));
  });

  it('reads separable phrasal verbs: "log customers in" is "log in", "try the request again" "try again"', () => {
    // the verb's object between the verb and its particle (one to three words, one clause)
    expect(concepts('a service that logs customers in with a magic link')).toContain('t:sign_in');
    expect(concepts('a service that logs customers in with a magic link')).not.toContain('t:logs');
    expect(concepts('sign new people up')).toContain('t:signup');
    expect(concepts('try the failed request again later')).toContain('t:retry');
    expect(concepts('lock attackers out after five failures')).toContain('t:account_lockout');
    // only the verb and the particle name the task; the object keeps its own sense
    const named = lexiconConcepts('logs customers in', true);
    expect(named.get('logs')).toEqual(['t:sign_in']);
    expect(named.get('customers')).toBeUndefined();
    // a particle that is a preposition before a noun phrase: "in the database" is where, not "log in"
    expect(concepts('log errors in the database')).not.toContain('t:sign_in');
    expect(concepts('log errors in production')).not.toContain('t:sign_in');
    // not across a clause, nor over more than three words or a conjunction
    expect(concepts('we sign contracts, in person')).not.toContain('t:sign_in');
    expect(concepts('try the new editor and call again')).not.toContain('t:retry');
    expect(concepts('try all of the many old requests again')).not.toContain('t:retry');
  });

  it('reads a word in the sense its phrase gives it, in a listing and in a query', () => {
    const wv = sharedWordVectors();
    const query = (q: string) =>
      prepareQuery(wv, tokenize(q), undefined, undefined, undefined, undefined, q);
    const listing = (title: string, description: string) =>
      listingWords(wv, { title, techStack: '', description });
    // "logging in" is signing in: the session service is no log collector
    expect(concepts('handles users logging in with sessions')).toContain('t:sign_in');
    expect(concepts('handles users logging in with sessions')).not.toContain('t:logs');
    const sessions = listing('Session service', 'Handles users logging in with sessions');
    const shipper = listing('Log shipper', 'Tails application log files into a search cluster');
    expect(conceptCoverage(query('collect logs'), sessions)).toBe(0);
    expect(conceptCoverage(query('collect logs'), shipper)).toBe(1);
    // a listing's phrase still names the broader task it belongs to
    expect(concepts('web push notifications')).toContain('t:notify');
    // the buyer's phrase names the task they want: "social login" is not any sign-in
    const named = lexiconConcepts('social login', true);
    expect(named.get('login')).toEqual(['t:social_login']);
    const jwt = listing('JWT login service', 'Issues tokens when users sign in with a password');
    const social = listing('Google and GitHub sign-in', 'OAuth for accounts users already have');
    expect(conceptCoverage(query('social login'), jwt)).toBe(0);
    expect(conceptCoverage(query('social login'), social)).toBe(1);
  });

  it('covers software tasks broadly, in the words a buyer uses for their effect', () => {
    expect(taskLexicon().concepts.size).toBeGreaterThanOrEqual(250);
    expect(concepts('keep the site up under heavy traffic')).toContain('t:load_test');
    expect(concepts('turn the audio into text')).toContain('t:transcription');
    expect(concepts('get paid by card on my site')).toContain('t:payments');
    expect(concepts('run the export in the background')).toContain('t:job_queue');
    expect(concepts('a leaderboard for my game')).toContain('t:leaderboard');
    expect(concepts('generate a changelog from conventional commits')).toContain('t:changelog');
    expect(concepts('flashcards with spaced repetition')).toContain('t:quiz');
  });

  it('names a task by the words buyers use for it beside a sibling task (stop 56)', () => {
    // each phrase of a query names its task, not the sibling whose single word it holds
    const names = (q: string, task: string, not?: string) => {
      const named = new Set([...lexiconConcepts(q, true).values()].flat());
      expect(named, q).toContain(task);
      if (not) expect(named, q).not.toContain(not);
    };
    // an outbound pacer keeps under someone else's quota; a rate limiter enforces your own
    names('stay under vendor quotas', 't:pacing', 't:rate_limit');
    names('hits per hour for each account', 't:rate_limit');
    // how much traffic an API takes is a load test, not a limit on it
    names('how many requests per second can my api take', 't:load_test', 't:rate_limit');
    names('how our checkout behaves under pressure', 't:load_test');
    // keys a platform hands to outside developers are API keys, not sign-in credentials
    names('revocable credentials for third-party developers', 't:api_keys', 't:sign_in');
    names('sign in with your credentials', 't:sign_in', 't:api_keys');
    // Kubernetes manifests are YAML; a linter catches mistakes at the exact line
    names('lint our kubernetes manifests', 't:yaml');
    names('catch mistakes in config files', 't:validate');
    names('stop calling a service that is already down', 't:circuit_breaker');
    names('notify me when a stock trades above a level', 't:stock_market');
    names('only managers may open the payroll page', 't:permissions');
    names('something to kill time in the terminal', 't:game');
  });

  it('tells mobile push from chat by the words that name each (stop 57)', () => {
    // "cloud messaging" and "push messaging" are phone push (FCM); bare "messaging" names no task
    // alone (message queues, SMS, push and chat all say it), so a push client's title is no chat
    for (const listing of ['Firebase Cloud Messaging client for Android', 'push messaging SDK']) {
      expect(concepts(listing), listing).toContain('t:mobile_push');
      expect(concepts(listing), listing).not.toContain('t:chat');
    }
    // what a chat product is called still names chat, in a listing and in a query
    for (const text of ['realtime messaging with rooms', 'a messaging app', 'group messaging'])
      expect(concepts(text), text).toContain('t:chat');
    expect(new Set([...lexiconConcepts('realtime messaging', true).values()].flat())).toEqual(
      new Set(['t:chat']),
    );
  });

  it("names a task by the buyer's account of its effect beside a sibling (stop 57)", () => {
    const names = (q: string, task: string, not?: string) => {
      const named = new Set([...lexiconConcepts(q, true).values()].flat());
      expect(named, q).toContain(task);
      if (not) expect(named, q).not.toContain(not);
    };
    // a client told to slow down keeps under someone else's limit: pacing, not our rate limit
    names('my jobs keep getting told to slow down by the api', 't:pacing', 't:rate_limit');
    names('stay within their rate limit', 't:pacing', 't:rate_limit');
    names('a rate limit for each client of our api', 't:rate_limit', 't:pacing');
    // a call tried again, with growing waits, is a retry
    names('calls that fail are tried again', 't:retry');
    names('with increasing delays between attempts', 't:retry');
    // answering at once and doing the work later is a job queue
    names('respond immediately and resize the upload later', 't:job_queue');
    names('visitors wait while we send the mail', 't:job_queue');
    // a reply of STOP is how a phone number opts out of text messages
    names('people can reply STOP to opt out', 't:sms', 't:mobile_push');
  });

  it("names a task by a buyer's general wording for it or its effect (stop 58, second lever)", () => {
    const names = (q: string, task: string, not?: string) => {
      const named = new Set([...lexiconConcepts(q, true).values()].flat());
      expect(named, q).toContain(task);
      if (not) expect(named, q).not.toContain(not);
    };
    // smoothing bursts and turning the excess away is our own rate limit, not a load test
    names('even out spikes from each visitor, turn away the excess', 't:rate_limit', 't:load_test');
    // what competing shops charge is scraped from their pages, not shopping
    names('track what competing online stores charge', 't:scrape', 't:shopping');
    // the XML file of a site's URLs for search engines is a sitemap
    names('an xml url index of my site', 't:crawl_site');
    // tokens handed to developers, with scopes, are API keys, not sign-in JWTs
    names('developer access tokens with scopes', 't:api_keys', 't:jwt');
    names('where our money goes each month', 't:expenses');
    names('tell customers whether the site is up', 't:uptime');
    // a service that refuses to start on a bad setting is configuration, not crash reporting
    names('crash at boot when a setting is wrong', 't:config', 't:error_tracking');
    names('refuse to start when a value is missing', 't:config');
    names('ship the new checkout to a slice of users first', 't:feature_flags');
    names('get the api keys out of git', 't:secrets');
    names('passwords in plain text', 't:secrets');
    // a down dependency we stop waiting on is a circuit breaker, not an uptime page
    names('a downstream outage', 't:circuit_breaker', 't:uptime');
    names('stop waiting on a backend that is down', 't:circuit_breaker');
    names('requests hang forever on a bad network', 't:timeouts');
    names('if it fails, have another go with random delays', 't:retry');
    names('farm out the number crunching to a pool of machines', 't:distributed_compute');
    names('how many users can the api serve before it slows down', 't:load_test');
    names('lighter pictures without resizing them', 't:image_compress');
    // staff kept from endpoints, and blocked attempts, are permissions
    names('interns must not reach the admin endpoints', 't:permissions');
    names('log the blocked attempts', 't:permissions');
    names('adaptive bitrate streams', 't:video');
    names('two calendars changed in both directions', 't:sync');
    names('make our select statements readable', 't:sql_format');
    names('semantic lookup over our documents', 't:semantic_search');
  });

  it("names a task by a buyer's general wording for it or its effect (stop 59)", () => {
    const names = (q: string, task: string, not?: string) => {
      const named = new Set([...lexiconConcepts(q, true).values()].flat());
      expect(named, q).toContain(task);
      if (not) expect(named, q).not.toContain(not);
    };
    // what a caller has left, an allowance that refills, spikes smoothed per caller: our own limit
    names('tell users how many requests left this hour', 't:rate_limit');
    names('credits that refill over time', 't:rate_limit');
    names('smooth out traffic spikes from clients', 't:rate_limit', 't:load_test');
    names('absorb surges from each caller', 't:rate_limit');
    // a 429 we receive, and calls we space out under their cap, are pacing, not our rate limit
    names('we keep getting 429 responses', 't:pacing', 't:rate_limit');
    names('space out calls so we stay below their cap', 't:pacing');
    names('all workers share one budget and wait their turn', 't:pacing', 't:budget');
    // when a key was last used, and integration credentials, are API keys, not signing in
    names('integration credentials and when each was last used', 't:api_keys', 't:sign_in');
    // what services print is their log output
    names('collect what the servers print', 't:logs');
    // an alert that reaches a phone while the app is closed is phone push
    names('notify users while the app is closed', 't:mobile_push');
    // the office messenger is team chat, not a chat product
    names('post to the workplace messenger', 't:team_chat', 't:chat');
    // a sanity check validates; Sanity the CMS is another thing
    names('sanity check the merged settings', 't:validate', 't:cms');
    names('pictures too heavy for the page', 't:image_compress');
    names('a see through background', 't:background_removal');
    // copies of a job that must not overlap are a scheduler's, not a backup's copies
    names('never two copies at once, with a history of runs', 't:schedule', 't:backup');
    names('hammer an endpoint and report the slowest responses', 't:load_test', 't:rate_limit');
    names('a one pager to announce a product', 't:landing_page', 't:pagination');
    names('warn me before we sell out', 't:inventory', 't:marketplace');
    names('which kinds of users may call which endpoints, with denials logged', 't:permissions');
  });

  it("names a task by a buyer's general wording for it or its effect (stop 59, second round)", () => {
    const names = (q: string, task: string, not?: string) => {
      const named = new Set([...lexiconConcepts(q, true).values()].flat());
      expect(named, q).toContain(task);
      if (not) expect(named, q).not.toContain(not);
    };
    // a limit said as "so many calls an hour" is our own rate limit
    names('allow each key fifty requests a minute', 't:rate_limit');
    // customers who change the card on file themselves want the billing portal
    names('let subscribers update their card without writing to support', 't:subscription');
    // a balance that goes negative before payday is a household budget
    names('warn me if I will be overdrawn before payday', 't:budget');
    // a slice of customers, switched off without a deploy, is a feature flag
    names('show the new page to a small slice of customers first', 't:feature_flags');
    names('turn the beta off without a deploy', 't:feature_flags', 't:deploy');
    // credentials kept out of plain text want a vault
    names('keep our database credentials out of plain text', 't:secrets');
    // a file's weight in kilobytes is image compression
    names('cut the photos down by a few hundred kilobytes', 't:image_compress');
    // scans joined into one file are a PDF merge, not OCR
    names('merge scanned receipts into a single file', 't:pdf_tools');
    // a record entered twice is a duplicate
    names('the same supplier was added twice', 't:dedupe');
    // which field a visitor filled wrongly is form validation
    names('show which field was filled wrongly', 't:forms');
    // hovering for the exact value is an interactive chart
    names('monthly revenue where you hover for the exact numbers', 't:charts');
    // container hosting whose nodes grow and shrink is a managed Kubernetes cluster
    names('container hosting whose workers grow and shrink with load', 't:kubernetes_ops');
  });
  it('does not name a task by an everyday word of a listing', () => {
    // stems shared with everyday words: "texting" is "text", "news" is "new", "stores" a verb
    const listing =
      'Stores embeddings and answers with text; tracks new postings, links existing accounts, ' +
      'entries with a time to live, scans each folder';
    const named = concepts(listing);
    for (const task of ['t:sms', 't:news', 't:shopping', 't:accounting', 't:chat', 't:ocr'])
      expect(named, task).not.toContain(task);
  });

  it("gives the candidate stage the one-word entries of the query's task concepts", () => {
    // "junk" names moderation: its other one-word entries reach a title that says "moderation"
    const moderation = conceptEntryWords('kick out people posting junk');
    expect(moderation).toEqual(expect.arrayContaining(['moderation', 'ban', 'spam']));
    // multi-word entries name other things word by word ("spam links", "bad words")
    expect(moderation.every((w) => !w.includes(' '))).toBe(true);
    // an action concept's words are a step of many tasks: the object (CSV) decides
    const csv = conceptEntryWords('python csv parser');
    expect(csv).toEqual(expect.arrayContaining(['csv', 'tsv', 'delimited']));
    expect(csv).not.toContain('parser');
    expect(csv).not.toContain('decode');
    expect(conceptEntryWords('quantum marmalade telescope')).toEqual([]);
  });

  it("bridges a buyer's words to a seller's where word vectors do not", () => {
    const wv = sharedWordVectors();
    const soft = (q: string, doc: string) =>
      softMatchWords(
        wv,
        prepareQuery(wv, tokenize(q), undefined, undefined, undefined, undefined, q),
        listingWords(wv, { title: doc, techStack: '', description: '' }),
      );
    const limiter = 'Token-bucket rate limiter middleware: caps requests per client';
    const chat = 'WebSocket chat server with rooms and presence';
    expect(soft('stop clients hammering my api', limiter)).toBeGreaterThan(
      soft('stop clients hammering my api', chat) + 0.2,
    );
    const watcher = 'Price drop watcher with e-mail alerts';
    expect(soft('tell me when it gets cheaper', watcher)).toBeGreaterThanOrEqual(0.8);
  });
});

describe('field weighting of word and concept matches (calibration knobs)', () => {
  const wv = sharedWordVectors();
  const prep = (q: string) =>
    prepareQuery(wv, tokenize(q), undefined, undefined, undefined, undefined, q);
  const newsletter = listingWords(wv, {
    title: 'Email newsletter sender',
    techStack: 'Node.js',
    description: 'Sends templated newsletters over SMTP with subscriber lists.',
  });
  const uptime = listingWords(wv, {
    title: 'Uptime monitor with status page',
    techStack: 'Go',
    description: 'Checks HTTP endpoints on a schedule and sends alerts by email and webhook.',
  });

  it('credits a word matched only in the description at `body` of a title match', () => {
    const q = prep('email');
    expect(softMatchWords(wv, q, newsletter)).toBe(1);
    expect(softMatchWords(wv, q, uptime)).toBe(1);
    expect(softMatchWords(wv, q, newsletter, 0.8)).toBe(1);
    expect(softMatchWords(wv, q, uptime, 0.8)).toBeCloseTo(0.8, 5);
  });

  it('credits a task concept named only in the description at `bodyCredit`', () => {
    const q = prep('email alerts');
    // the newsletter's title names email, not alerting; the monitor names both, in its description
    expect(conceptCoverage(q, uptime)).toBe(1);
    expect(conceptCoverage(q, uptime, 0.5)).toBeCloseTo(0.5, 5);
    const news = conceptCoverage(q, newsletter, 0.5)!;
    expect(news).toBeGreaterThan(0);
    expect(news).toBe(conceptCoverage(q, newsletter)!);
  });
});
