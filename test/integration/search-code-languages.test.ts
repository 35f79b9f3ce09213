import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipOf, type Files } from '../helpers/archives.js';
import { listItem, startSellingApp, type SellingContext } from '../helpers/selling.js';
import { newWallet } from '../helpers/wallets.js';

/**
 * Issue 29: search reads the languages the scan measured in a listing's archive. A listing whose
 * code is in the requested stack counts as in that stack even when its tech_stack does not say so,
 * and a listing that declares the stack while its code is mostly another language does not
 * outrank the one whose code is in it. Real archives, uploaded and scanned.
 */
let t: SellingContext;
beforeAll(async () => {
  t = await startSellingApp({ MAX_ACTIVE_LISTINGS: '100' });
});
afterAll(() => t?.close());

function python(seed: string): string {
  const out = [`"""Module ${seed}."""`, ''];
  for (let i = 0; i < 40; i++)
    out.push(`def step_${seed}_${i}(value):`, `    return value * ${i + 3} % ${97 + i}`, '');
  return out.join('\n');
}

function javascript(seed: string): string {
  const out = [`// module ${seed}`];
  for (let i = 0; i < 80; i++)
    out.push(
      `export function step_${seed}_${i}(value) {`,
      `  return (value * ${i + 7}) % ${89 + i};`,
      '}',
    );
  return out.join('\n');
}

function go(seed: string): string {
  const out = ['package main', ''];
  for (let i = 0; i < 40; i++)
    out.push(`func step_${seed}_${i}(v int) int {`, `\treturn v * ${i + 5} % ${83 + i}`, '}');
  return out.join('\n');
}

const files = (seed: string, code: Record<string, string>): Files => ({
  'README.md': `# ${seed}\n`,
  ...code,
});

async function list(title: string, description: string, techStack: string, code: Files) {
  return listItem(t, newWallet(), {
    bytes: zipOf(code),
    metadata: { title, description, tech_stack: techStack, prices: { USDC: 5 } },
  });
}

async function ranked(q: string, query: Record<string, string> = {}): Promise<string[]> {
  const res = await t.app.inject({ url: '/api/v1/search', query: { q, ...query } });
  expect(res.statusCode).toBe(200);
  return (res.json() as Array<{ id: string }>).map((r) => r.id);
}

describe('ranking by the preview languages', () => {
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // declares no language; its code is Python
    ids.measured = await list(
      'Walrus tusk length estimator',
      'estimates walrus tusk length from photos',
      'CLI',
      files('walrusmeasured', { 'walrus/estimate.py': python('walrusmeasured') }),
    );
    // the better words, but neither declared nor measured Python (its code is Go)
    ids.other = await list(
      'Walrus tusk length estimator from photos',
      'estimates walrus tusk length from photos of walrus herds, tusk by tusk',
      'CLI',
      files('walrusgo', {
        'main.go': go('walrusgo'),
      }),
    );
    // declares Python and its code is Python
    ids.truePy = await list(
      'Narwhal tusk length estimator',
      'estimates narwhal tusk length from photos',
      'Python',
      files('narwhaltrue', { 'narwhal/estimate.py': python('narwhaltrue') }),
    );
    // declares Python, better words, but 95 % of its code is JavaScript
    ids.mislabelled = await list(
      'Narwhal tusk length estimator from photos',
      'estimates narwhal tusk length from photos of narwhal pods, tusk by tusk',
      'Python',
      files('narwhalmis', {
        'src/estimate.js': javascript('narwhalmis'),
        'tools/setup.py': 'print("setup")\n',
      }),
    );
    await t.work();
    const { sql } = t.runtime.deps;
    const status = await sql<{ id: string; status: string }[]>`
      select id, status from items where id = any(${Object.values(ids)}::uuid[])`;
    expect(status.map((r) => r.status)).toEqual(['active', 'active', 'active', 'active']);
    const rows = await sql<{ itemId: string; languages: string[] }[]>`
      select item_id, languages from item_previews where item_id = any(${Object.values(ids)}::uuid[])`;
    expect(rows).toHaveLength(4);
    const langs = Object.fromEntries(rows.map((r) => [r.itemId, r.languages]));
    expect(langs[ids.measured!]).toEqual(['Python']);
    expect(langs[ids.mislabelled!]?.[0]).toBe('JavaScript');
  });

  it('a listing whose code is in the named stack counts as in that stack', async () => {
    const order = await ranked('walrus tusk length estimator from photos in python');
    expect(order.indexOf(ids.measured!)).toBeGreaterThanOrEqual(0);
    expect(order.indexOf(ids.measured!)).toBeLessThan(order.indexOf(ids.other!));
  });

  it('without a named stack the better words still win', async () => {
    const order = await ranked('walrus tusk length estimator from photos');
    expect(order.indexOf(ids.other!)).toBeLessThan(order.indexOf(ids.measured!));
  });

  it('a declared stack the code contradicts does not outrank a true match', async () => {
    const order = await ranked('narwhal tusk length estimator from photos in python');
    expect(order.indexOf(ids.truePy!)).toBeGreaterThanOrEqual(0);
    expect(order.indexOf(ids.truePy!)).toBeLessThan(order.indexOf(ids.mislabelled!));
  });

  it('the tech_stack filter ranks by the code too', async () => {
    const order = await ranked('narwhal tusk length estimator from photos', {
      tech_stack: 'python',
    });
    expect(order).toContain(ids.mislabelled);
    expect(order.indexOf(ids.truePy!)).toBeLessThan(order.indexOf(ids.mislabelled!));
  });
});
