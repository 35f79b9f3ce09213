import { describe, expect, it } from 'vitest';
import { altered } from '../helpers/forge.js';

describe('altered (how tests forge an input)', () => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=.x';
  it('always differs from the real value, at the start or the end, for every character', () => {
    for (const c of alphabet) {
      for (const value of [`${c}rest`, `rest${c}`, c]) {
        expect(altered(value)).not.toBe(value);
        expect(altered(value, -1)).not.toBe(value);
        expect(altered(value)).toHaveLength(value.length);
      }
    }
  });
  it('the pattern it replaces could leave a signature unchanged', () => {
    // `replace(/sig=./, 'sig=A')` forged nothing for a signature that began with A (1 in 64)
    const query = '?exp=1&sig=AbCd';
    expect(query.replace(/sig=./, 'sig=A')).toBe(query);
    expect(altered('AbCd')).not.toBe('AbCd');
  });
});
