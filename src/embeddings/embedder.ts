/**
 * Turns listing text and queries into vectors. One interface, two providers: the built-in offline
 * hashing embedder (default, no download, no network) and an OpenAI-compatible HTTP client.
 */
export interface Embedder {
  /** Stable identifier stored beside each vector, e.g. `builtin-hash-v1` or the remote model name. */
  readonly model: string;
  readonly dimensions: number;
  /** Unit-length vectors, one per input, in input order. */
  embed(texts: string[]): Promise<number[][]>;
}

/** The text of a listing that its vector is computed from. */
export function listingText(l: {
  title: string;
  description: string;
  techStack: string;
  promptSummary?: string | null;
}): string {
  return [l.title, l.techStack, l.description, l.promptSummary ?? ''].filter(Boolean).join('\n');
}
