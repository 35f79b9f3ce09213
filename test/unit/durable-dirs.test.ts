import { describe, expect, it } from 'vitest';
import { madeDirectories } from '../../src/db/durable-dirs.js';

describe('the directories a recursive mkdir made, to sync', () => {
  it('each one made, from the deepest, and the one the highest was made in', () => {
    expect(madeDirectories('/srv/a/b/c', '/srv/a')).toEqual([
      '/srv/a/b/c',
      '/srv/a/b',
      '/srv/a',
      '/srv',
    ]);
    expect(madeDirectories('/srv/a', '/srv/a')).toEqual(['/srv/a', '/srv']);
    expect(madeDirectories('/srv/a', undefined)).toEqual([]);
  });
});
