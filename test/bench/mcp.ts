import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { CatalogClient } from '../../src/client/catalog.js';
import { loadDemoData } from '../../src/domain/discovery/demo.js';
import { startListeningTestApp } from '../helpers/app.js';
import { ensureBuilt, MCP_ENTRY, ROOT } from '../helpers/build.js';

/**
 * `npm run bench -- mcp`: the MCP server as a client runs it (the built entry over stdio).
 * - connect: spawn to an answered `initialize`, the SDK client's `connect()`, median of runs;
 *   beside it, a bare `node -e 0` start on the same machine as the floor.
 * - search: `search_items` over stdio against the same search over REST (the typed client),
 *   interleaved query by query in the same run; the ratio of medians (goal <= 1.3).
 */
const QUERIES = [
  'rate limiting middleware',
  'discord bot',
  'csv parser',
  'websocket chat server',
  'jwt authentication',
  'web scraper',
  'image resizing',
  'cron scheduler',
  'markdown to html',
  'retry with backoff',
];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const ms = (x: number) => Math.round(x * 100) / 100;

export async function benchMcp(): Promise<Record<string, unknown>> {
  const [t] = await Promise.all([startListeningTestApp(), ensureBuilt()]);
  try {
    await loadDemoData(t.runtime.deps);
    const env = {
      ...getDefaultEnvironment(),
      MARKETPLACE_URL: t.base,
      MCP_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'bench-mcp-')),
    };
    const bare: number[] = [];
    const connect: number[] = [];
    for (let i = 0; i < 7; i++) {
      let start = performance.now();
      const node = spawn(process.execPath, ['-e', '0']);
      await once(node, 'exit');
      bare.push(performance.now() - start);
      start = performance.now();
      const c = new Client({ name: 'bench', version: '1' });
      await c.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [MCP_ENTRY],
          cwd: ROOT,
          env,
          stderr: 'ignore',
        }),
      );
      connect.push(performance.now() - start);
      await c.close();
    }
    console.log(
      `connect (spawn to initialized): median ${ms(median(connect))} ms (bare node start ${ms(median(bare))} ms)`,
    );

    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MCP_ENTRY],
        cwd: ROOT,
        env,
        stderr: 'ignore',
      }),
    );
    const rest = new CatalogClient({ baseUrl: t.base });
    const viaMcp: number[] = [];
    const viaRest: number[] = [];
    const rounds = Number(process.env.BENCH_MCP_ROUNDS ?? 10);
    // warm both paths first
    for (const q of QUERIES) {
      await rest.search({ q });
      await client.callTool({ name: 'search_items', arguments: { q } });
    }
    for (let r = 0; r < rounds; r++) {
      for (const q of QUERIES) {
        const order = (r + q.length) % 2 === 0;
        for (const which of order ? ['rest', 'mcp'] : ['mcp', 'rest']) {
          const start = performance.now();
          if (which === 'rest') await rest.search({ q });
          else await client.callTool({ name: 'search_items', arguments: { q } });
          (which === 'rest' ? viaRest : viaMcp).push(performance.now() - start);
        }
      }
    }
    await client.close();
    const ratio = median(viaMcp) / median(viaRest);
    console.log(
      `search_items over stdio: median ${ms(median(viaMcp))} ms vs REST ${ms(median(viaRest))} ms: ratio ${ratio.toFixed(2)} (goal <= 1.3), ${viaMcp.length} calls each`,
    );
    return {
      connect_median_ms: ms(median(connect)),
      bare_node_start_median_ms: ms(median(bare)),
      search_mcp_median_ms: ms(median(viaMcp)),
      search_rest_median_ms: ms(median(viaRest)),
      search_ratio: Math.round(ratio * 100) / 100,
      calls_each: viaMcp.length,
    };
  } finally {
    await t.close();
  }
}
