import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Approvals } from '../../mcp/approvals.js';
import { createHostedMcpServer } from '../../mcp/hosted/server.js';
import { listOutputsAdditive } from '../../mcp/tools/output-schemas.js';
import { connectMcp } from '../helpers/mcp.js';

/**
 * The service only adds fields to its answers, so no listed outputSchema may close an object: an
 * SDK client checks every `structuredContent` against it and throws on a field it does not name
 * (test/e2e/mcp-additive-fields.test.ts shows it over the real transports). The fields clients
 * rely on stay declared and required, and the server still checks its own results.
 */

/** Where a JSON Schema forbids properties it does not name (JSON paths). */
function closedObjects(schema: unknown, at = '$'): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => closedObjects(s, `${at}[${i}]`));
  if (typeof schema !== 'object' || schema === null) return [];
  const o = schema as Record<string, unknown>;
  const here = o.additionalProperties === false || o.unevaluatedProperties === false ? [at] : [];
  return [...here, ...Object.entries(o).flatMap(([k, v]) => closedObjects(v, `${at}.${k}`))];
}

/** Every `required` list in a JSON Schema, by path. */
function requiredLists(schema: unknown, at = '$'): Record<string, unknown> {
  if (typeof schema !== 'object' || schema === null) return {};
  const o = schema as Record<string, unknown>;
  const here = Array.isArray(o.required) ? { [at]: o.required } : {};
  return Object.assign(
    here,
    ...Object.entries(o).map(([k, v]) =>
      requiredLists(v, Array.isArray(o) ? `${at}[${k}]` : `${at}.${k}`),
    ),
  );
}

async function listed(server: McpServer): Promise<{ client: Client; tools: Tool[] }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'schemas', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, tools: (await client.listTools()).tools };
}

const BASE = 'http://marketplace.test';
const hosted = (revision: 'A' | 'B') =>
  createHostedMcpServer({ baseUrl: BASE, fetch, maxArchiveBytes: 1024, revision });

describe('every listed outputSchema is open to new fields', () => {
  it.each([
    ['hosted, Revision B', () => listed(hosted('B'))],
    ['hosted, Revision A', () => listed(hosted('A'))],
    [
      'local',
      async () => {
        const c = await connectMcp(BASE, { approvals: new Approvals(() => 'the log') });
        return { client: c.client, tools: (await c.client.listTools()).tools };
      },
    ],
  ])('%s', async (_name, list) => {
    const { client, tools } = await list();
    const checked = tools.filter((t) => t.outputSchema);
    expect(checked.length).toBeGreaterThan(5);
    for (const tool of checked) {
      expect(closedObjects(tool.outputSchema), tool.name).toEqual([]);
      // what a client relies on is still declared and required
      expect(Object.keys(requiredLists(tool.outputSchema)).length, tool.name).toBeGreaterThan(0);
    }
    await client.close();
  });

  it('keeps the fields required, nested ones too', async () => {
    const { client, tools } = await listed(hosted('B'));
    const schema = (name: string) => tools.find((t) => t.name === name)!.outputSchema!;
    expect(requiredLists(schema('list_my_orders'))).toMatchObject({
      '$.anyOf[0]': ['orders', 'pagination'],
      '$.anyOf[0].properties.orders.items': expect.arrayContaining(['order_id', 'item_id']),
      '$.anyOf[1]': expect.arrayContaining(['x402Version', 'accepts']),
    });
    expect(requiredLists(schema('get_item'))).toMatchObject({
      $: expect.arrayContaining(['id', 'metadata']),
    });
    await client.close();

    const local = await connectMcp(BASE);
    const localTools = (await local.client.listTools()).tools;
    const order = localTools.find((t) => t.name === 'get_order')!.outputSchema!;
    expect(requiredLists(order).$).toEqual(expect.arrayContaining(['order_id', 'download_url']));
    await local.close();
  });
});

describe('a tool with an open listed schema', () => {
  async function echo() {
    const server = new McpServer({ name: 'echo', version: '1.0.0' });
    listOutputsAdditive(server);
    server.registerTool(
      'echo',
      {
        description: 'Answers what it is given.',
        inputSchema: { answer: z.record(z.string(), z.unknown()) },
        outputSchema: z.object({ a: z.string(), inner: z.object({ b: z.number() }) }),
      },
      ({ answer }) => ({ content: [{ type: 'text', text: '' }], structuredContent: answer }),
    );
    return listed(server);
  }
  const call = (client: Client, args: Record<string, unknown>) =>
    client.callTool({ name: 'echo', arguments: args }) as Promise<CallToolResult>;

  it('reaches the SDK client with fields its schema does not name, at any depth', async () => {
    const { client } = await echo();
    const answer = { a: 'x', inner: { b: 1, later: true }, later: 'too' };
    const r = await call(client, { answer });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual(answer);
    await client.close();
  });

  it('is still checked by the server: a missing or mistyped field is an error', async () => {
    const { client } = await echo();
    for (const answer of [{ inner: { b: 1 } }, { a: 'x', inner: { b: 'one' } }]) {
      const r = await call(client, { answer }).catch((err: Error) => err);
      const text = r instanceof Error ? r.message : JSON.stringify(r.content);
      expect(r instanceof Error || r.isError, JSON.stringify(answer)).toBe(true);
      expect(text).toMatch(/Output validation error/);
    }
    // and its arguments as declared
    const bad = await call(client, { answer: 'not an object' }).catch((err: Error) => err);
    expect(bad instanceof Error ? bad.message : JSON.stringify(bad.content)).toMatch(
      /Input validation error/,
    );
    await client.close();
  });
});
