import { existsSync, readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  type CallToolResult,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LocalState } from '../../mcp/state.js';
import { startListeningTestApp, type ListeningTestContext } from '../helpers/app.js';
import { projectDir, uniqueProject, zipOf } from '../helpers/archives.js';
import { ensureBuilt, MCP_ENTRY, ROOT } from '../helpers/build.js';
import { createSaleItem } from '../helpers/items.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { startRpcProxy, type RpcProxy } from '../helpers/rpc-proxy.js';
import { freshKey } from '../helpers/wallet-secrets.js';

/**
 * Long tool calls of the local MCP server as a client sees them (issue 28), over stdio from the
 * built entry and over Streamable HTTP: notifications/progress in order for list_item,
 * get_listing_status (wait) and acquire_item; a cancelled wait stops polling the marketplace; a
 * purchase cancelled before signing spends nothing, one cancelled after paying is recorded (no
 * second purchase, the budget counts it, the log says so) with no partial file. The server talks
 * to the marketplace through a loopback pass-through that counts and can hold its requests.
 */
let t: ListeningTestContext;
let proxy: RpcProxy;
let hold: ((req: IncomingMessage) => Promise<void>) | undefined;

beforeAll(async () => {
  [t] = await Promise.all([startListeningTestApp(), ensureBuilt()]);
  proxy = await startRpcProxy(t.base, { hold: (req) => hold?.(req) });
}, 300_000);
afterAll(async () => {
  await proxy?.close();
  await t?.close();
});

type Call = (
  name: string,
  args: Record<string, unknown>,
  opts?: { signal?: AbortSignal },
) => Promise<{ result: CallToolResult; steps: Progress[] }>;

type Token = string | number;
/** Per client: the progress tokens of its tool calls in order, and each one's notifications. */
const watched = new WeakMap<Client, { tokens: Token[]; steps: Map<Token, Progress[]> }>();

/**
 * The progress notifications the server sent for each call, recorded where the client's transport
 * reads them. Not through `onprogress` alone: the SDK's client hands a notification to its
 * handler a microtask late but retires the call's token as soon as it reads the response, so a
 * last step read in the same chunk as the result (a fast unpack, under load) is dropped with
 * "unknown token" (modelcontextprotocol/typescript-sdk#2580, open). The server cannot avoid it:
 * it wrote the step before the result, which reaches the user at that moment.
 */
function progressOf(client: Client) {
  const known = watched.get(client);
  if (known) return known;
  const transport = client.transport!;
  const seen = { tokens: [] as Token[], steps: new Map<Token, Progress[]>() };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const params = (message as { method?: string; params?: { _meta?: { progressToken?: Token } } })
      .params;
    const token = params?._meta?.progressToken;
    if ((message as { method?: string }).method === 'tools/call' && token !== undefined) {
      seen.tokens.push(token);
      seen.steps.set(token, []);
    }
    return send(message, options);
  };
  const receive = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    if ((message as { method?: string }).method === 'notifications/progress') {
      const {
        progressToken,
        progress,
        total,
        message: text,
      } = (message as unknown as { params: Progress & { progressToken: Token } }).params;
      seen.steps.get(progressToken)?.push({
        progress,
        ...(total !== undefined && { total }),
        ...(text !== undefined && { message: text }),
      });
    }
    receive(message, extra);
  };
  watched.set(client, seen);
  return seen;
}

/**
 * Calls a tool with a progress token (the SDK's onprogress) and keeps the notifications the
 * server sent for it (./progressOf). Calls on one client are made one at a time here.
 */
const callerOf =
  (client: Client): Call =>
  async (name, args, opts = {}) => {
    const seen = progressOf(client);
    const first = seen.tokens.length;
    const result = (await client.callTool({ name, arguments: args }, CallToolResultSchema, {
      onprogress: () => undefined,
      ...(opts.signal && { signal: opts.signal }),
      // the SDK's default 60 s request timeout is not the subject here
      timeout: 120_000,
    })) as CallToolResult;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(seen.tokens.length, 'one tool call with a progress token').toBe(first + 1);
    return { result, steps: seen.steps.get(seen.tokens[first]!)! };
  };

/** The built entry over stdio against the marketplace behind the proxy; its log kept. */
async function spawnStdio(key: `0x${string}`, dataDir: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_ENTRY],
    cwd: ROOT,
    env: {
      ...getDefaultEnvironment(),
      MARKETPLACE_URL: proxy.url,
      MCP_WALLET_PRIVATE_KEY: key,
      MCP_DATA_DIR: dataDir,
    },
    stderr: 'pipe',
  });
  const log = { text: '' };
  transport.stderr?.on('data', (chunk: Buffer) => (log.text += chunk.toString()));
  const client = new Client({ name: 'progress-e2e', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools(); // output schemas checked from here on
  return { client, call: callerOf(client), log };
}

const statusPolls = (itemId: string) =>
  proxy.seen.filter((r) => r === `GET /api/v1/seller/items/${itemId}/status`).length;

const increasing = (steps: Progress[]) => {
  for (let i = 1; i < steps.length; i++)
    expect(steps[i]!.progress).toBeGreaterThan(steps[i - 1]!.progress);
  for (const s of steps) expect(s.progress).toBeLessThanOrEqual(s.total!);
};

/**
 * list_item with progress; then a get_listing_status wait cancelled by the client: the server
 * stops polling the marketplace; then a wait with a progress per poll, until the scan ends.
 * Nothing here depends on how fast a loaded machine answers: the polls that matter are held at
 * the proxy or counted there, and the scan runs when the test says.
 */
async function sellAndWait(call: Call, client: Client) {
  const listed = await call('list_item', {
    source_path: projectDir(uniqueProject()),
    title: 'Ibis progress helpers',
    description: 'Helpers that report progress and honour cancellation in long jobs.',
    tech_stack: 'TypeScript',
    price_usdc: 1,
  });
  expect(listed.steps.map((s) => s.message)).toEqual([
    'packing the folder',
    "checking the archive with the marketplace's scan rules",
    'uploading: the marketplace checks it before any fee',
    'paying the listing fee of 0.01 USDC',
  ]);
  expect(listed.steps.map((s) => [s.progress, s.total])).toEqual([
    [1, 4],
    [2, 4],
    [3, 4],
    [4, 4],
  ]);
  const itemId = (listed.result.structuredContent as { item_id: string }).item_id;
  const statusPath = `/api/v1/seller/items/${itemId}/status`;

  // cancelled during a long wait: the client's call ends, and so does the server's polling. A
  // poll is held at the proxy until the cancellation has reached the server (a ping sent after it
  // by the same client is answered), then let through: the server polls no more.
  const ac = new AbortController();
  const before = statusPolls(itemId);
  let arrived!: () => void;
  const holding = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  hold = async (req) => {
    if (req.url === statusPath && statusPolls(itemId) === before + 2) {
      arrived();
      await released;
    }
  };
  const pending = call('get_listing_status', { item_id: itemId, wait_seconds: 60 }, ac);
  pending.catch(() => undefined);
  let atAbort: number;
  try {
    await holding;
    ac.abort();
    await expect(pending).rejects.toThrow();
    // a connection the aborted call's stream shared may be reset under it: the ping is what
    // orders, so a ping answered after one reset proves the same
    await client.ping().catch(() => client.ping());
    atAbort = statusPolls(itemId);
  } finally {
    hold = undefined;
    release();
  }
  await sleep(3_000);
  // at most the rest of the poll under way when the cancellation arrived; one a second without it
  expect(statusPolls(itemId) - atAbort).toBeLessThanOrEqual(1);

  // the scan has not run (jobs run only when the test says): the wait reports each poll that
  // finds it still to do, and ends when the scan, run after a few polls, has finished
  const polled = statusPolls(itemId);
  const waiting = call('get_listing_status', { item_id: itemId, wait_seconds: 60 });
  // six requests are at least three polls (each may ask twice: its identity prompt, then signed)
  while (statusPolls(itemId) < polled + 6) await sleep(50);
  await t.runtime.runDueJobs();
  const waited = await waiting;
  expect(waited.result.structuredContent).toMatchObject({ status: 'active', scan_finished: true });
  // one per poll before the scan ended: two at least before the third poll was sent, each finding
  // it still to do; a poll that came while the test ran the scan (seconds, on a loaded machine)
  // found it under way, and none after that found it still to do
  const step =
    /^(?:pending_scan: waiting for the scan|scanning: being scanned), \d+ s left to wait$/;
  const states = waited.steps.map((s) => {
    const message = s.message ?? '';
    return step.test(message) ? message.split(':')[0] : undefined;
  });
  expect(states, JSON.stringify(waited.steps)).not.toContain(undefined);
  const toDo = states.filter((s) => s === 'pending_scan').length;
  expect(toDo).toBeGreaterThanOrEqual(2);
  expect(states.slice(toDo), JSON.stringify(waited.steps)).not.toContain('pending_scan');
  increasing(waited.steps);
  return itemId;
}

// a budget of time for a loaded machine (two processes, many round trips), not an assertion
it('Streamable HTTP: list_item and get_listing_status report progress; a cancelled wait stops polling; list_item cancelled before and after the fee', async () => {
  const c = await connectMcp(proxy.url, { transport: 'http' });
  const logged: Array<{ msg: string } & Record<string, unknown>> = [];
  c.deps.log = (_level, msg, extra = {}) => logged.push({ ...extra, msg });
  const ledger = LocalState.inDir(c.dataDir);
  const fees = async () =>
    (
      await t.runtime.deps.sql<{ n: number }[]>`
        select count(*)::int as n from x402_payments where lower(payer) = lower(${c.account.address})`
    )[0]!.n;
  const listing = (title: string) => ({
    source_path: projectDir(uniqueProject()),
    title,
    description: 'Helpers that report progress and honour cancellation in long jobs.',
    tech_stack: 'TypeScript',
    price_usdc: 1,
  });
  const mine = async () =>
    (
      (await c.call('list_my_items', {})).structuredContent as {
        items: Array<{ item_id: string; title: string }>;
      }
    ).items;
  try {
    await sellAndWait(callerOf(c.client), c.client);
    expect(await fees()).toBe(1);
    expect(await ledger.spentLast24h(c.account.address)).toBe(0.01);

    // cancelled while the marketplace validates the upload: no fee signed, nothing listed
    const early = new AbortController();
    hold = async (req) => {
      if (
        req.method === 'POST' &&
        req.url === '/api/v1/items' &&
        !req.headers['payment-signature']
      ) {
        early.abort();
        await sleep(500);
      }
    };
    await expect(callerOf(c.client)('list_item', listing('Ibis early'), early)).rejects.toThrow();
    await sleep(1_000);
    expect(await fees()).toBe(1);
    expect(await ledger.spentLast24h(c.account.address)).toBe(0.01);
    expect((await mine()).map((i) => i.title)).not.toContain('Ibis early');

    // cancelled while the signed fee is with the marketplace: listed, counted, logged
    const late = new AbortController();
    hold = async (req) => {
      if (
        req.method === 'POST' &&
        req.url === '/api/v1/items' &&
        req.headers['payment-signature']
      ) {
        late.abort();
        await sleep(500);
      }
    };
    await expect(callerOf(c.client)('list_item', listing('Ibis late'), late)).rejects.toThrow();
    hold = undefined;
    for (let i = 0; i < 50 && logged.length === 0; i++) await sleep(100);
    expect(await fees()).toBe(2);
    expect(await ledger.spentLast24h(c.account.address)).toBe(0.02);
    const listed = (await mine()).find((i) => i.title === 'Ibis late');
    expect(logged).toEqual([
      {
        msg: 'list_item cancelled after the upload was sent: listed',
        item_id: listed!.item_id,
        fee_usdc: 0.01,
      },
    ]);
  } finally {
    hold = undefined;
    await c.close();
  }
}, 180_000);

it('stdio: progress for list_item, the scan wait and acquire_item; cancellation before and after paying', async () => {
  const seller = await spawnStdio(freshKey(), mkdtempSync(path.join(tmpdir(), 'progress-s-')));
  const buyerKey = freshKey();
  const buyerAddress = privateKeyToAccount(buyerKey).address;
  const buyerDir = mkdtempSync(path.join(tmpdir(), 'progress-b-'));
  const buyer = await spawnStdio(buyerKey, buyerDir);
  const ledger = LocalState.inDir(buyerDir);
  const paid = async () =>
    (
      await t.runtime.deps.sql<{ n: number }[]>`
        select count(*)::int as n from x402_payments where lower(payer) = lower(${buyerAddress})`
    )[0]!.n;
  const item = async (title: string) =>
    createSaleItem(t.runtime.deps, { priceUsdc: 0.5, bytes: zipOf(uniqueProject()), title });
  const acquirePath = (itemId: string) => `/api/v1/items/${itemId}/acquire`;
  try {
    await sellAndWait(seller.call, seller.client);

    // a purchase with progress: quote, pay, download, check and save, unpack
    const heron = await item('Heron progress');
    const bought = await buyer.call('acquire_item', {
      item_id: heron.itemId,
      max_price_usdc: 1,
      accept_terms: true,
      unpack: true,
    });
    const orderId = (bought.result.structuredContent as { order_id: string }).order_id;
    expect(bought.steps.map((s) => s.message)).toEqual([
      'asking the marketplace for the price',
      'paying 0.5 USDC on base',
      `paid (order ${orderId}); downloading the archive`,
      "checking the archive's digest and signed scan report, saving it",
      'unpacking',
    ]);
    expect(bought.steps.map((s) => s.progress)).toEqual([1, 2, 3, 4, 5]);
    expect(bought.steps.every((s) => s.total === 5)).toBe(true);
    expect(await paid()).toBe(1);
    expect(await ledger.spentLast24h(buyerAddress)).toBe(0.5);

    // cancelled while the marketplace answers the price: nothing signed, nothing spent
    const crane = await item('Crane progress');
    const early = new AbortController();
    hold = async (req) => {
      if (req.url === acquirePath(crane.itemId) && !req.headers['payment-signature']) {
        early.abort();
        await sleep(500); // the cancellation reaches the server before the price does
      }
    };
    const first = buyer.call(
      'acquire_item',
      { item_id: crane.itemId, max_price_usdc: 1, accept_terms: true },
      early,
    );
    await expect(first).rejects.toThrow();
    await sleep(1_000);
    hold = undefined;
    expect(await paid()).toBe(1);
    expect(await ledger.spentLast24h(buyerAddress)).toBe(0.5);
    expect(await ledger.orderOfItem(buyerAddress, crane.itemId)).toBeUndefined();
    const signedFor = (itemId: string) =>
      proxy.seen.filter((r) => r === `POST ${acquirePath(itemId)}`).length;
    expect(signedFor(crane.itemId)).toBe(1); // the unsigned prompt only
    // nothing left under way or reserved: the same purchase goes through afterwards
    await buyer.call('acquire_item', {
      item_id: crane.itemId,
      max_price_usdc: 1,
      accept_terms: true,
    });
    expect(await paid()).toBe(2);
    expect(await ledger.spentLast24h(buyerAddress)).toBe(1);

    // cancelled while the signed payment is with the marketplace: paid, so it is recorded
    const stork = await item('Stork progress');
    const late = new AbortController();
    hold = async (req) => {
      if (req.url === acquirePath(stork.itemId) && req.headers['payment-signature']) {
        late.abort();
        await sleep(500);
      }
    };
    const second = buyer.call(
      'acquire_item',
      { item_id: stork.itemId, max_price_usdc: 1, accept_terms: true },
      late,
    );
    await expect(second).rejects.toThrow();
    hold = undefined;
    for (let i = 0; i < 100 && !buyer.log.text.includes('after paying'); i++) await sleep(100);
    expect(await paid()).toBe(3);
    const order = await ledger.orderOfItem(buyerAddress, stork.itemId);
    expect(order).toMatchObject({ status: 'completed', price_usdc: 0.5 });
    expect(await ledger.spentLast24h(buyerAddress)).toBe(1.5);
    const line = buyer.log.text.split('\n').find((l) => l.includes('after paying'));
    expect(line, 'the log says the cancelled purchase was paid').toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({
      msg: 'acquire_item cancelled before the download, after paying: the order is recorded',
      order_id: order!.order_id,
      item_id: stork.itemId,
      price_usdc: 0.5,
    });
    // no file, partial or whole, was written for it
    expect(existsSync(path.join(buyerDir, 'downloads', order!.order_id))).toBe(false);
    // a repeat is refused as already bought; download_order fetches the archive
    const again = (await buyer.client.callTool({
      name: 'acquire_item',
      arguments: { item_id: stork.itemId, max_price_usdc: 1, accept_terms: true },
    })) as CallToolResult;
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain(`already bought this listing`);
    const files = await buyer.call('download_order', { order_id: order!.order_id });
    expect(files.steps.map((s) => s.message)).toEqual([
      'fetching fresh links',
      'downloading the archive',
      "checking it against the marketplace's digest and saving it",
    ]);
    const saved = files.result.structuredContent as { path: string };
    expect(readFileSync(saved.path)).toEqual(stork.bytes);
    expect(await paid()).toBe(3);
  } finally {
    hold = undefined;
    await Promise.all([seller.client.close(), buyer.client.close()]);
  }
}, 180_000);
