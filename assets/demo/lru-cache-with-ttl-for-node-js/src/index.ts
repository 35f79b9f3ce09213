export interface CacheOptions<V> {
  max: number;
  ttlMs?: number;
  /** Weight of one value (default 1); `max` then bounds the total weight. */
  weigh?: (value: V) => number;
  now?: () => number;
}

interface Entry<V> {
  value: V;
  expires: number;
  weight: number;
}

export class LruCache<K, V> {
  // a Map iterates in insertion order: re-inserting on access keeps the least recent first
  private readonly map = new Map<K, Entry<V>>();
  private weight = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly opts: CacheOptions<V>) {
    if (opts.max <= 0) throw new RangeError('max must be positive');
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  get(key: K): V | undefined {
    const e = this.map.get(key);
    if (!e || e.expires <= this.now()) {
      if (e) this.delete(key);
      this.misses++;
      return undefined;
    }
    this.map.delete(key);
    this.map.set(key, e);
    this.hits++;
    return e.value;
  }

  set(key: K, value: V, ttlMs = this.opts.ttlMs): this {
    this.delete(key);
    const weight = this.opts.weigh?.(value) ?? 1;
    if (weight > this.opts.max) return this; // would evict everything and still not fit
    this.map.set(key, { value, weight, expires: ttlMs === undefined ? Infinity : this.now() + ttlMs });
    this.weight += weight;
    for (const k of this.map.keys()) {
      if (this.weight <= this.opts.max) break;
      this.delete(k);
    }
    return this;
  }

  delete(key: K): boolean {
    const e = this.map.get(key);
    if (!e) return false;
    this.weight -= e.weight;
    return this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }

  get hitRatio(): number {
    const total = this.hits + this.misses;
    return total === 0 ? 0 : this.hits / total;
  }
}

/** Caches a function's results by its arguments (JSON key); concurrent calls share one promise. */
export function memoize<A extends unknown[], R>(fn: (...args: A) => R, opts: CacheOptions<R>): (...args: A) => R {
  const cache = new LruCache<string, R>(opts);
  return (...args: A) => {
    const key = JSON.stringify(args);
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const result = fn(...args);
    cache.set(key, result);
    if (result instanceof Promise) result.catch(() => cache.delete(key)); // never cache a failure
    return result;
  };
}
