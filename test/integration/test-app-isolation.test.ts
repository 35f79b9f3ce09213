import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { createSaleItem } from '../helpers/items.js';

/**
 * `npm test` leaves the checkout as it found it: `npm start`'s default store is ./data, and a
 * newcomer who ran the tests first found their archives in it.
 */
const repoData = path.join(new URL('../..', import.meta.url).pathname, 'data');
const filesUnder = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.join(e.parentPath, e.name))
    : [];

let t: TestContext;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('a test app', () => {
  it("stores the archives it writes outside the checkout's ./data", async () => {
    const before = filesUnder(repoData);
    const item = await createSaleItem(t.runtime.deps);
    expect(item.itemId).toBeTruthy();
    expect(t.config.ARCHIVES_DIR?.startsWith(tmpdir())).toBe(true);
    expect(filesUnder(t.config.ARCHIVES_DIR!).length).toBeGreaterThan(0);
    expect(filesUnder(repoData)).toEqual(before);
  });
});
