import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryStore } from './limiter.js';

test('a full bucket admits its capacity, then refuses until refilled', async () => {
  const store = memoryStore();
  for (let i = 0; i < 3; i++) assert.equal((await store.take('k', 3, 1, 0)).allowed, true);
  const refused = await store.take('k', 3, 1, 0);
  assert.equal(refused.allowed, false);
  assert.equal(refused.retryAfterMs, 1000);
  assert.equal((await store.take('k', 3, 1, 1000)).allowed, true);
});
