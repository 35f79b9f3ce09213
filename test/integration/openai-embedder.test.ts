import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmbedder } from '../../src/embeddings/openai.js';

// A loopback stand-in for a remote embeddings API, speaking OpenAI's /v1/embeddings wire format.
let server: Server;
let base: string;
const seen: Array<{ auth?: string; body: { model: string; input: string[] } }> = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      seen.push({ auth: req.headers.authorization, body });
      if (req.url !== '/v1/embeddings') return res.writeHead(404).end();
      if (body.model === 'broken') return res.writeHead(500).end('{"error":"boom"}');
      const dims = body.model === 'wrong-dims' ? 3 : 4;
      // answer out of order, unnormalised: the client must reorder by index and normalise
      const data = body.input
        .map((text: string, index: number) => ({
          object: 'embedding',
          index,
          embedding: Array.from({ length: dims }, (_, k) => text.length + k),
        }))
        .reverse();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          data,
          model: body.model,
          usage: { prompt_tokens: 1, total_tokens: 1 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('OpenAI-compatible embedder', () => {
  it('batches inputs, sends the model and key, reorders by index and normalises', async () => {
    const e = new OpenAiEmbedder({
      url: base,
      model: 'm',
      dimensions: 4,
      apiKey: 'sk-test',
      batchSize: 2,
    });
    const out = await e.embed(['a', 'bbb', 'cc']);
    expect(seen.filter((s) => s.body.model === 'm').map((s) => s.body.input)).toEqual([
      ['a', 'bbb'],
      ['cc'],
    ]);
    expect(seen[0]!.auth).toBe('Bearer sk-test');
    expect(out).toHaveLength(3);
    const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    for (const v of out) expect(norm(v)).toBeCloseTo(1, 6);
    // 'bbb' has length 3 → raw [3,4,5,6]; 'a' → [1,2,3,4]: order is preserved
    expect(out[1]![0]! / out[1]![3]!).toBeCloseTo(3 / 6, 6);
    expect(out[0]![0]! / out[0]![3]!).toBeCloseTo(1 / 4, 6);
  });

  it('refuses vectors of the wrong dimension and reports server errors', async () => {
    await expect(
      new OpenAiEmbedder({ url: base, model: 'wrong-dims', dimensions: 4 }).embed(['x']),
    ).rejects.toThrow(/3 dimensions/);
    await expect(
      new OpenAiEmbedder({ url: base, model: 'broken', dimensions: 4 }).embed(['x']),
    ).rejects.toThrow(/500/);
  });
});
