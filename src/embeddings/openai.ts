import { z } from 'zod';
import type { Embedder } from './embedder.js';

const EmbeddingsResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().int(), embedding: z.array(z.number()) })),
});

/**
 * Client for an OpenAI-compatible `POST {base}/embeddings` endpoint (OpenAI, Ollama, vLLM, TEI).
 * Inputs are sent in batches; vectors are normalised to unit length so cosine distance is stable
 * whatever the server returns.
 */
export class OpenAiEmbedder implements Embedder {
  constructor(
    private readonly opts: {
      url: string;
      model: string;
      dimensions: number;
      apiKey?: string;
      batchSize?: number;
      timeoutMs?: number;
      fetch?: typeof fetch;
    },
  ) {}

  get model() {
    return this.opts.model;
  }
  get dimensions() {
    return this.opts.dimensions;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    const batch = this.opts.batchSize ?? 64;
    for (let i = 0; i < texts.length; i += batch)
      out.push(...(await this.embedBatch(texts.slice(i, i + batch))));
    return out;
  }

  private async embedBatch(input: string[]): Promise<number[][]> {
    const url = `${this.opts.url.replace(/\/+$/, '')}/embeddings`;
    const res = await (this.opts.fetch ?? fetch)(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(this.opts.apiKey && { authorization: `Bearer ${this.opts.apiKey}` }),
      },
      body: JSON.stringify({ model: this.opts.model, input, encoding_format: 'float' }),
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
    });
    if (!res.ok) throw new Error(`embeddings endpoint answered ${res.status}`);
    const parsed = EmbeddingsResponseSchema.parse(await res.json());
    const vectors = new Array<number[]>(input.length);
    for (const d of parsed.data) {
      if (d.embedding.length !== this.dimensions) {
        throw new Error(
          `embeddings endpoint returned ${d.embedding.length} dimensions, EMBEDDINGS_DIMENSIONS is ${this.dimensions}`,
        );
      }
      vectors[d.index] = normalise(d.embedding);
    }
    if (vectors.some((v) => !v))
      throw new Error('embeddings endpoint returned fewer vectors than inputs');
    return vectors;
  }
}

function normalise(v: number[]): number[] {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / n);
}
