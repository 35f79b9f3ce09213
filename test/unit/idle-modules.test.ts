import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * What a service loads before anyone calls it stays resident for its whole life (idle memory,
 * docs/benchmarks.md). A fresh process imports the app's module graph as `serve` does and reports
 * the modules it loaded.
 */
function modulesLoadedBy(entry: string): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const urls = [];
    registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); urls.push(r.url); return r; } });
    await import(${JSON.stringify(path.resolve(entry))});
    console.log(JSON.stringify(urls));
  `;
  const res = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  );
  expect(res.status, res.stderr).toBe(0);
  return JSON.parse(res.stdout.trim().split('\n').pop()!) as string[];
}

describe('modules a service loads at start', () => {
  it('leaves the MCP SDK and the hosted MCP server until the first POST /mcp', () => {
    const urls = modulesLoadedBy('src/http/app.ts');
    expect(urls.some((u) => u.includes('/src/http/routes/mcp.'))).toBe(true);
    expect(urls.filter((u) => u.includes('@modelcontextprotocol/sdk'))).toEqual([]);
    expect(urls.filter((u) => u.includes('/mcp/hosted/server.'))).toEqual([]);
  });
});

describe('the Markdown judge', () => {
  it('leaves markdown-it until a served text needs judging (~8 MB resident otherwise idle)', () => {
    const urls = modulesLoadedBy('src/http/app.ts');
    expect(urls.some((u) => u.includes('/src/domain/items/markdown.'))).toBe(true);
    expect(urls.filter((u) => u.includes('markdown-it'))).toEqual([]);
  });
});

describe('the MCP server', () => {
  it('leaves viem until a tool signs or checks a signature (~340 modules of its start)', () => {
    const urls = modulesLoadedBy('mcp/server.ts');
    // the buying tools, and the scan report check they call, are loaded
    expect(urls.some((u) => u.includes('/mcp/tools/acquire-item.'))).toBe(true);
    expect(urls.some((u) => u.includes('/src/client/attestation.'))).toBe(true);
    expect(urls.filter((u) => /\/node_modules\/(viem|ox|abitype)\//.test(u))).toEqual([]);
  });
});
