/**
 * Derived values for the few keys a process keeps seeing (checksummed payout addresses, EIP-712
 * domain separators): at most `max` entries. When full it starts over, so a flood of one-off keys
 * holds at most `max` values and the hot keys are derived again at their next use.
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(private readonly max: number) {}

  /** The value kept for `key`, without deriving one. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Keeps `value` for `key` (replacing what was there), within the same bound. */
  set(key: K, value: V): void {
    if (!this.#entries.has(key) && this.#entries.size >= this.max) this.#entries.clear();
    this.#entries.set(key, value);
  }

  get(key: K, derive: (key: K) => V): V {
    let value = this.#entries.get(key);
    if (value === undefined) {
      value = derive(key);
      if (this.#entries.size >= this.max) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value;
  }
}
