/**
 * A copy of `value` with the character at `at` (negative: from the end) replaced by one that is
 * certain to differ, from the same alphabet (base64url, hex, decimal all stay well-formed): a
 * forged input must never equal the real one by chance, as `replace(/sig=./, 'sig=A')` did for
 * every signature that already began with `A`.
 */
export function altered(value: string, at = 0): string {
  const i = at < 0 ? value.length + at : at;
  const c = value[i];
  if (c === undefined) throw new Error(`no character at ${at} in a value of ${value.length}`);
  const swap = /[0-9]/.test(c) ? (c === '1' ? '2' : '1') : c === 'A' ? 'B' : c === 'a' ? 'b' : 'A';
  const out = value.slice(0, i) + swap + value.slice(i + 1);
  if (out === value) throw new Error('altered() produced the same value');
  return out;
}
