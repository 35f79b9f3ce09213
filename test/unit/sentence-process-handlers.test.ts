import { expect, it } from 'vitest';
import { sentenceModel } from '../../src/embeddings/sentence.js';

/**
 * The encoder's WebAssembly glue (@energetic-ai/core) adds process-wide error listeners that
 * rethrow every unhandled rejection and exception: loading it must leave the process's error
 * handling as it was (src/embeddings/sentence.ts).
 */
it('loading the sentence encoder leaves the process-wide error listeners as they were', async () => {
  const listeners = () => [
    process.listeners('uncaughtException'),
    process.listeners('unhandledRejection'),
  ];
  const before = listeners();
  const model = await sentenceModel();
  expect((await model.embed(['parse a csv file']))[0]).toHaveLength(512);
  expect(listeners()).toEqual(before);
}, 120_000);
