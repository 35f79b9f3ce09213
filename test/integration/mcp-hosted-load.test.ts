import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ListeningTestContext } from '../helpers/app.js';

// The hosted MCP server loads at the first POST /mcp, not at start. A load that fails answers
// that request as an MCP client reads errors (503, a JSON-RPC error, Retry-After), the service
// keeps serving, and a later request loads it.
let failImport = true;
vi.mock('../../mcp/hosted/server.js', async (original) => {
  if (failImport) throw new Error('simulated load failure');
  return original();
});

let t: ListeningTestContext;
beforeAll(async () => {
  // Files share a worker's modules (vitest isolate: false): an earlier file may have loaded the
  // hosted server already. A fresh module graph gives this file's app its own first load.
  vi.resetModules();
  const { startListeningTestApp } = await import('../helpers/app.js');
  t = await startListeningTestApp({});
});
afterAll(() => t?.close());

const listTools = (id: number) =>
  fetch(`${t.base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: {} }),
  });

describe('the hosted MCP server, loaded at the first request', () => {
  it('a failed load answers 503 with a JSON-RPC error; two requests at once, then a later one loads it', async () => {
    const failed = await Promise.all([listTools(1), listTools(2)]);
    for (const res of failed) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32603 } });
    }
    expect((await fetch(`${t.base}/api/v1/health`)).status).toBe(200);
    failImport = false;
    const loaded = await Promise.all([listTools(3), listTools(4)]);
    for (const res of loaded) {
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result: { tools: { name: string }[] } };
      expect(body.result.tools.map((tool) => tool.name)).toContain('search_items');
    }
  });
});
