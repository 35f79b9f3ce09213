import type { Config } from '../config.js';
import { BUILTIN_DIMENSIONS, BuiltinEmbedder } from './builtin.js';
import type { Embedder } from './embedder.js';
import { OpenAiEmbedder } from './openai.js';
import { SentenceEmbedder } from './sentence.js';

export function createEmbedder(config: Config): Embedder {
  if (config.EMBEDDINGS_URL && config.EMBEDDINGS_MODEL && config.EMBEDDINGS_DIMENSIONS) {
    return new OpenAiEmbedder({
      url: config.EMBEDDINGS_URL,
      model: config.EMBEDDINGS_MODEL,
      dimensions: config.EMBEDDINGS_DIMENSIONS,
      apiKey: config.EMBEDDINGS_API_KEY,
    });
  }
  const words = new BuiltinEmbedder(config.EMBEDDINGS_DIMENSIONS ?? BUILTIN_DIMENSIONS);
  return config.EMBEDDINGS_BUILTIN === 'sentence'
    ? new SentenceEmbedder(words, config.EMBEDDINGS_SENTENCE_SHARE)
    : words;
}

export type { Embedder } from './embedder.js';
