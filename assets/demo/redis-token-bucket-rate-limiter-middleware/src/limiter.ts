import type { NextFunction, Request, Response } from 'express';

/** Result of one take: whether the request may pass and how long until a token is back. */
export interface Take {
  allowed: boolean;
  remaining: number;
  retryAfterMs: number;
}

export interface BucketStore {
  take(key: string, capacity: number, refillPerSecond: number, nowMs: number): Promise<Take>;
}

// KEYS[1] bucket key; ARGV: capacity, refill per second, now in ms. Refill, then take one token.
export const TAKE_SCRIPT = `
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local tokens = tonumber(b[1]) or capacity
local ts = tonumber(b[2]) or now
tokens = math.min(capacity, tokens + (now - ts) / 1000 * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate * 1000))
return { allowed, math.floor(tokens), math.ceil((1 - tokens) / rate * 1000) }
`;

interface RedisLike {
  eval(script: string, opts: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

export function redisStore(client: RedisLike, prefix = 'rl:'): BucketStore {
  return {
    async take(key, capacity, rate, now) {
      const [allowed, remaining, wait] = (await client.eval(TAKE_SCRIPT, {
        keys: [prefix + key],
        arguments: [String(capacity), String(rate), String(now)],
      })) as [number, number, number];
      return { allowed: allowed === 1, remaining, retryAfterMs: allowed ? 0 : wait };
    },
  };
}

/** In-process buckets with the same arithmetic, for tests and single-instance deployments. */
export function memoryStore(): BucketStore {
  const buckets = new Map<string, { tokens: number; ts: number }>();
  return {
    async take(key, capacity, rate, now) {
      const b = buckets.get(key) ?? { tokens: capacity, ts: now };
      b.tokens = Math.min(capacity, b.tokens + ((now - b.ts) / 1000) * rate);
      b.ts = now;
      const allowed = b.tokens >= 1;
      if (allowed) b.tokens -= 1;
      buckets.set(key, b);
      const retryAfterMs = allowed ? 0 : Math.ceil(((1 - b.tokens) / rate) * 1000);
      return { allowed, remaining: Math.floor(b.tokens), retryAfterMs };
    },
  };
}

export interface RateLimitOptions {
  store: BucketStore;
  capacity: number;
  refillPerSecond: number;
  keyOf?: (req: Request) => string;
  now?: () => number;
}

export function rateLimit(opts: RateLimitOptions) {
  const keyOf = opts.keyOf ?? ((req: Request) => req.get('x-api-key') ?? req.ip ?? 'anonymous');
  const now = opts.now ?? Date.now;
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const t = await opts.store.take(keyOf(req), opts.capacity, opts.refillPerSecond, now());
      res.setHeader('RateLimit-Limit', String(opts.capacity));
      res.setHeader('RateLimit-Remaining', String(t.remaining));
      if (t.allowed) return next();
      res.setHeader('Retry-After', String(Math.ceil(t.retryAfterMs / 1000)));
      res.status(429).json({ error: 'rate_limited', retry_after_ms: t.retryAfterMs });
    } catch (err) {
      next(err);
    }
  };
}
