import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CatalogClient } from '../../src/client/catalog.js';
import { loadDemoData } from '../../src/domain/discovery/demo.js';
import { startListeningTestApp } from '../helpers/app.js';
import { ensureBuilt, MCP_ENTRY, ROOT } from '../helpers/build.js';

/**
 * `npm run bench -- mcp`: the MCP server as a client runs it (the built entry over stdio).
 * - connect: spawn to an answered `initialize`, the SDK client's `connect()`, median of runs;
 *   beside it, a bare `node -e 0` start on the same machine as the floor.
 * - search: `search_items` over stdio against the same search over REST (the typed client, the
 *   same query and result), interleaved query by query in the same run; the ratio of medians
 *   (goal <= 1.3). Beside it, an MCP `ping` over the same stdio pipe: the transport's own round
 *   trip, the floor of what the MCP hop can cost.
 *
 * The marketplace runs in a process of its own (./mcp-service-child.ts), so the REST client and
 * the MCP server both reach it over loopback as any agent does. `BENCH_MCP_INPROCESS=1` serves it
 * from this process instead (the earlier set-up), where the REST baseline never leaves the
 * process while the MCP path crosses it four times. `BENCH_MCP_ROUNDS` (default 20) rounds of ten
 * queries; `BENCH_MCP_PROFILE=<dir>` makes the measured MCP server write a V8 CPU profile there.
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

/** CPU time (user + system, ms) a process has used so far, from /proc; undefined elsewhere. */
function processCpuMs(pid: number | null | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    // fields after the command name: utime and stime are the 12th and 13th, in clock ticks
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}
const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The marketplace with the demo catalogue: its base URL and how to stop it. */
async function startMarketplace(
  inProcess: boolean,
): Promise<{ base: string; close: () => Promise<void> }> {
  if (inProcess) {
    const t = await startListeningTestApp();
    await loadDemoData(t.runtime.deps);
    return { base: t.base, close: () => t.close() };
  }
  const file = fileURLToPath(new URL('./mcp-service-child.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  while (!out.includes('\n')) {
    const [chunk] = (await Promise.race([
      once(child.stdout, 'data'),
      once(child, 'exit').then(() => {
        throw new Error('the marketplace child exited before it was ready');
      }),
    ])) as [string];
    out += chunk;
  }
  return {
    base: out.trim(),
    close: async () => {
      const exited = once(child, 'exit');
      child.stdin.end();
      await exited;
    },
  };
}

export async function benchMcp(): Promise<Record<string, unknown>> {
  const inProcess = process.env.BENCH_MCP_INPROCESS === '1';
  const [market] = await Promise.all([startMarketplace(inProcess), ensureBuilt()]);
  try {
    const env = {
      ...getDefaultEnvironment(),
      MARKETPLACE_URL: market.base,
      MCP_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'bench-mcp-')),
    };
    const transport = (args: string[] = []) =>
      new StdioClientTransport({
        command: process.execPath,
        args: [...args, MCP_ENTRY],
        cwd: ROOT,
        env,
        stderr: 'ignore',
      });
    const bare: number[] = [];
    const connect: number[] = [];
    for (let i = 0; i < 7; i++) {
      let start = performance.now();
      const node = spawn(process.execPath, ['-e', '0']);
      await once(node, 'exit');
      bare.push(performance.now() - start);
      start = performance.now();
      const c = new Client({ name: 'bench', version: '1' });
      await c.connect(transport());
      connect.push(performance.now() - start);
      await c.close();
    }
    console.log(
      `connect (spawn to initialized): median ${ms(median(connect))} ms (bare node start ${ms(median(bare))} ms)`,
    );

    const profile = process.env.BENCH_MCP_PROFILE;
    const client = new Client({ name: 'bench', version: '1' });
    const stdio = transport(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []);
    await client.connect(stdio);
    // as a real client does: listing the tools makes the SDK check every structuredContent
    // against the tool's outputSchema
    await client.listTools();
    const rest = new CatalogClient({ baseUrl: market.base });
    // the hosted endpoint on the marketplace itself (stateless Streamable HTTP, POST /mcp)
    const hostedClient = new Client({ name: 'bench-hosted', version: '1' });
    await hostedClient.connect(new StreamableHTTPClientTransport(new URL(`${market.base}/mcp`)));
    await hostedClient.listTools();
    const runs = {
      rest: (q: string) => rest.search({ q }),
      mcp: async (q: string) => {
        const r = await client.callTool({ name: 'search_items', arguments: { q } });
        if (r.isError || !r.structuredContent)
          throw new Error(`search_items failed: ${JSON.stringify(r)}`);
      },
      ping: () => client.ping(),
      hosted: async (q: string) => {
        const r = await hostedClient.callTool({ name: 'search_items', arguments: { q } });
        if (r.isError || !r.structuredContent)
          throw new Error(`hosted search_items failed: ${JSON.stringify(r)}`);
      },
    };
    const times: Record<keyof typeof runs, number[]> = { rest: [], mcp: [], ping: [], hosted: [] };
    const rounds = Number(process.env.BENCH_MCP_ROUNDS ?? 20);
    const load = loadavg()[0]!;
    // warm every path first
    for (const q of QUERIES) for (const run of Object.values(runs)) await run(q);
    for (let r = 0; r < rounds; r++) {
      for (const q of QUERIES) {
        const order = Object.keys(runs) as Array<keyof typeof runs>;
        if ((r + q.length) % 2) order.reverse();
        for (const which of order) {
          const start = performance.now();
          await runs[which](q);
          times[which].push(performance.now() - start);
        }
      }
    }

    // CPU per call, less sensitive to other load than wall time: blocks of one kind each, the
    // MCP server's CPU read from /proc, this process's (the agent's side) from cpuUsage
    const cpuBlock = async (run: (q: string) => Promise<unknown>) => {
      const server = processCpuMs(stdio.pid);
      const own = ownCpuMs();
      const n = rounds * QUERIES.length;
      for (let i = 0; i < n; i++) await run(QUERIES[i % QUERIES.length]!);
      const after = processCpuMs(stdio.pid);
      return {
        agent: (ownCpuMs() - own) / n,
        server: server !== undefined && after !== undefined ? (after - server) / n : NaN,
      };
    };
    const cpuRest = await cpuBlock(runs.rest);
    const cpuMcp = await cpuBlock(runs.mcp);
    await client.close();
    await hostedClient.close();
    const ratio = median(times.mcp) / median(times.rest);
    const hostedRatio = median(times.hosted) / median(times.rest);
    console.log(
      `search_items over hosted /mcp: median ${ms(median(times.hosted))} ms vs REST ${ms(median(times.rest))} ms: ratio ${hostedRatio.toFixed(2)}`,
    );
    console.log(
      `search_items over stdio: median ${ms(median(times.mcp))} ms vs REST ${ms(median(times.rest))} ms: ratio ${ratio.toFixed(2)} (goal <= 1.3), ${times.mcp.length} calls each; ` +
        `stdio ping ${ms(median(times.ping))} ms; marketplace ${inProcess ? 'in this process' : 'in its own process'}; load average ${load.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`,
    );
    console.log(
      inProcess
        ? 'CPU per search: not separable with the marketplace in this process'
        : `CPU per search outside the marketplace: REST client ${ms(cpuRest.agent)} ms; ` +
            `MCP ${ms(cpuMcp.agent + cpuMcp.server)} ms (agent's MCP client ${ms(cpuMcp.agent)} + MCP server ${ms(cpuMcp.server)})`,
    );
    return {
      marketplace: inProcess ? 'in process' : 'own process',
      connect_median_ms: ms(median(connect)),
      bare_node_start_median_ms: ms(median(bare)),
      search_mcp_median_ms: ms(median(times.mcp)),
      search_rest_median_ms: ms(median(times.rest)),
      stdio_ping_median_ms: ms(median(times.ping)),
      search_ratio: Math.round(ratio * 100) / 100,
      search_hosted_median_ms: ms(median(times.hosted)),
      search_hosted_ratio: Math.round(hostedRatio * 100) / 100,
      ...(!inProcess && {
        cpu_per_search_ms: {
          rest_client: ms(cpuRest.agent),
          mcp_client: ms(cpuMcp.agent),
          mcp_server: ms(cpuMcp.server),
        },
      }),
      calls_each: times.mcp.length,
      load_average: [load, loadavg()[0]!].map((x) => Math.round(x * 100) / 100),
    };
  } finally {
    await market.close();
  }
}
