import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stackWords } from '../../src/domain/search/stacks.js';
import { seedListing } from '../helpers/catalog.js';
import { startTestApp, type TestContext } from '../helpers/app.js';

/**
 * The tech_stack filter matches whole stack names as ranking reads them (issue 22): JavaScript is
 * not Java, C is not C++ or C#; a name is met by its stack's longer names (node: Node.js).
 */
let t: TestContext;
const STACKS: Record<string, string> = {
  js: 'JavaScript, React',
  java: 'Java, Spring',
  c: 'C, Make',
  cpp: 'C++, CMake',
  csharp: 'C#, .NET 8',
  flask: 'Python 3, Flask, Redis',
  express: 'Node.js, Express',
  ts: 'TypeScript',
};
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp();
  const { sql, embedder } = t.runtime.deps;
  for (const [key, techStack] of Object.entries(STACKS)) {
    ids[key] = await seedListing(sql, embedder, {
      title: `Quokka habitat census tool ${key}`,
      description: 'counts quokka burrows from drone survey images for the habitat census',
      techStack,
    });
  }
});
afterAll(() => t?.close());

async function filtered(tech_stack: string): Promise<string[]> {
  const res = await t.app.inject({
    url: '/api/v1/search',
    query: { q: 'quokka habitat census from drone survey images', tech_stack },
  });
  expect(res.statusCode).toBe(200);
  const body = res.json() as Array<{ id: string }>;
  const key = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
  return body.flatMap((r) => (key[r.id] ? [key[r.id]!] : [])).sort();
}

describe('tech_stack filter', () => {
  it('every seeded listing is found without a filter', async () => {
    expect(await filtered('')).toEqual(Object.keys(STACKS).sort());
  });

  it('matches whole stack names: java is not JavaScript, c is not C++ or C#', async () => {
    expect(await filtered('java')).toEqual(['java']);
    expect(await filtered('Java')).toEqual(['java']);
    expect(await filtered('javascript')).toEqual(['js']);
    expect(await filtered('c')).toEqual(['c']);
    expect(await filtered('C++')).toEqual(['cpp']);
    expect(await filtered('cpp')).toEqual(['cpp']);
    expect(await filtered('c#')).toEqual(['csharp']);
    expect(await filtered('.net')).toEqual(['csharp']);
    expect(await filtered('script')).toEqual([]);
    expect(await filtered('type')).toEqual([]);
  });

  it('a stack name met by its longer names, every term required; a framework does not stand for its language', async () => {
    expect(await filtered('python')).toEqual(['flask']);
    expect(await filtered('py')).toEqual(['flask']);
    expect(await filtered('node.js')).toEqual(['express']);
    expect(await filtered('node')).toEqual(['express']);
    expect(await filtered('java, spring')).toEqual(['java']);
    expect(await filtered('java, react')).toEqual([]);
    expect(await filtered('redis,flask')).toEqual(['flask']);
    // the names a listing states: Flask alone is not a "django" nor a "ruby" listing
    expect(await filtered('django')).toEqual([]);
  });
});

describe('items.stack_words (migration 230)', () => {
  it('holds the same words as the TypeScript reading of a stack', async () => {
    const { sql, embedder } = t.runtime.deps;
    const samples = [
      'JavaScript, React',
      'C/C++, CMake',
      'C#, ASP.NET Core, .NET 8',
      'F#',
      'Node.js, Express',
      'nodejs; next.js 14; Vue.js; react.js',
      'TypeScript/Node',
      'Python 3.12 (FastAPI)',
      'my_node.js, snake_case',
      'Ünïcode stack, Go',
      'objective-c, c++17',
    ];
    for (const techStack of samples) {
      const id = await seedListing(sql, embedder, {
        title: 'Stack words sample',
        description: 'stack words sample',
        techStack,
      });
      const [row] = await sql<{ stackWords: string[] }[]>`
        select stack_words from items where id = ${id}`;
      expect(row!.stackWords, techStack).toEqual(stackWords(techStack));
    }
  });
});
