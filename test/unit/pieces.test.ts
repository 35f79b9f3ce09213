import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { piece, Pieces } from '../../src/db/pieces.js';

// Fragments are built lazily: this client never connects.
const sql = postgres('postgres://127.0.0.1:1/none', { max: 1 });
afterAll(() => sql.end({ timeout: 0 }));

describe('statement pieces', () => {
  const paid = piece('paid', [], sql`paid as (select 1)`);
  const agent = piece('agent', ['paid'], sql`agent as (select 1 from paid)`);
  const placed = piece('placed', ['paid', 'agent'], sql`placed as (select 1 from agent)`);

  it('builds a statement whose every need is named by an earlier piece', () => {
    const built = Pieces.given().then(paid).then(agent).then(placed, '\n  ');
    expect(built.list.map((p) => [p.piece.name, p.lead])).toEqual([
      ['paid', ' '],
      ['agent', ' '],
      ['placed', '\n  '],
    ]);
    expect(() => built.with(sql)).not.toThrow();
  });

  it('refuses a piece that reads a relation no earlier piece names', () => {
    // @ts-expect-error `agent` needs `paid`, which nothing named yet
    expect(() => Pieces.given().then(agent)).toThrow('piece agent needs paid before it');
    // @ts-expect-error `placed` needs `agent` too
    expect(() => Pieces.given().then(paid).then(placed)).toThrow('needs agent before it');
  });

  it('refuses a relation named twice and a layout that is not whitespace', () => {
    expect(() => Pieces.given().then(paid).then(paid)).toThrow('piece paid is named twice');
    expect(() => Pieces.given().then(paid, ', x ')).toThrow('lead must be whitespace');
  });

  it('joins pieces written against given relations only where those are named', () => {
    const operation = Pieces.given('paid').then(agent).then(placed);
    expect(Pieces.given().then(paid).join(operation).list).toHaveLength(3);
    // @ts-expect-error the operation's pieces need `paid`
    expect(() => Pieces.given().join(operation)).toThrow('pieces need paid before them');
    // pieces that still need a given relation are not a statement
    expect(() => operation.with(sql)).toThrow('a statement must name paid');
  });

  it('keeps nothing of a statement once it is dropped: one template per layout', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // a statement per purchase, with values of its own, dropped at once (postgres.js caches an
    // Error per template array for the life of the process)
    const build = () => {
      const values = piece('paid', [], sql`paid as (select ${String(Math.random())})`);
      return Pieces.given().then(values).then(agent, '\n  ').with(sql);
    };
    build();
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 5000; i++) build();
    gc();
    // a new template per statement kept ~2.2 kB each: 11 MB here, growing with every purchase
    expect((process.memoryUsage().heapUsed - before) / 5000).toBeLessThan(200);
    const a = build() as unknown as { strings: unknown };
    const b = build() as unknown as { strings: unknown };
    expect(a.strings).toBe(b.strings);
  });
});
