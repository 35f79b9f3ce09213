import { generatePaymentId } from '@x402/extensions/payment-identifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Sql, SqlFragment } from '../../src/db/index.js';
import { compile, prepared, recording } from '../../src/db/statement.js';
import { nonceInsert } from '../../src/domain/payments/nonces.js';
import { startTestApp, type TestContext } from '../helpers/app.js';
import { uniqueProject, zipOf } from '../helpers/archives.js';
import { listItem, startSellingApp } from '../helpers/selling.js';
import { createSaleItem } from '../helpers/items.js';
import { idPayer, moneyOf } from '../helpers/payment-id.js';
import { newWallet, promptOf } from '../helpers/wallets.js';

/**
 * The completing statement (a purchase, a listing fee) is recorded and sent with its text built
 * once per shape (src/db/statement.ts). What the database receives must be exactly what
 * postgres.js sends for the same fragments as tagged queries: the same text, parameter values and
 * types (so the same named prepared statement), and the same rows back. Compared here through
 * postgres.js's `debug` hook, which sees every statement as built, on the real embedded database.
 */
let t: TestContext;
let sql: Sql;
beforeAll(async () => {
  t = await startTestApp({ LOCAL_FACILITATOR_START_BALANCE_USDC: '10' });
  sql = t.runtime.deps.sql;
});
afterAll(() => t?.close());

interface Sent {
  text: string;
  parameters: unknown[];
  types: unknown[];
}

/** What postgres.js sends for each query `run` makes. */
async function sent(run: () => Promise<unknown>): Promise<{ sent: Sent[]; error?: unknown }> {
  const list: Sent[] = [];
  const options = sql.options as { debug?: unknown };
  options.debug = (_c: number, text: string, parameters: unknown[], types: unknown[]) =>
    list.push({ text, parameters: [...parameters], types: [...types] });
  try {
    await run();
    return { sent: list };
  } catch (error) {
    return { sent: list, error };
  } finally {
    delete options.debug;
  }
}

/** The same statement both ways: tagged, as postgres.js builds it, and recorded, prepared. */
async function bothWays(build: (tag: Sql) => SqlFragment) {
  let tagged: unknown, recorded: unknown;
  const a = await sent(async () => (tagged = await sql`${build(sql)}`));
  const b = await sent(async () => (recorded = await prepared(sql, build(recording(sql)))));
  return { a, b, tagged, recorded };
}

describe('a statement recorded and prepared', () => {
  const shapes: Record<string, (tag: Sql) => SqlFragment> = {
    'values of every inferred type, nested fragments and identifiers': (q) => q`
      with v as (select ${1}::int as n, ${'two'}::text as s, ${true} as b, ${10n as never}::bigint as big,
        ${new Date('2026-01-02T03:04:05Z')}::timestamptz as at, ${new Uint8Array([1, 2])}::bytea as raw,
        ${null}::text as nothing, ${['a', 'b']}::text[] as list, ${q.json({ k: [1, 'x'] })}::jsonb as doc)
      select ${q`${q('n')}, s, ${q`b, big`}`}, at, raw, nothing, list, doc from ${q('v')}
      where ${q`${q`true`} and n = ${1}`}`,
    'an empty fragment and a fragment list': (q) =>
      q`select 1 as one ${q``} ${[q`, ${2}::int as two`, q`, ${'3'}::text as three`]}`,
    'postgres.js fragments among recorded ones': (q) =>
      q`select ${sql`${5}::int`} as five, ${q`${sql`${q`${6}::int`}`}`} as six`,
    'a template array made at run time, kept': (q) =>
      q(Object.assign(['select ', '::int as seven'], { raw: ['select ', '::int as seven'] }), 7),
  };

  for (const [name, build] of Object.entries(shapes)) {
    it(`sends what postgres.js sends: ${name}`, async () => {
      const { a, b, tagged, recorded } = await bothWays(build);
      expect(a.error).toBeUndefined();
      expect(b.error).toBeUndefined();
      expect(b.sent).toEqual(a.sent);
      expect(recorded).toEqual(tagged);
    });
  }

  it('builds a shape text once, then reuses it for other values of the same shape', () => {
    const build = (n: number) => recording(sql)`select ${recording(sql)`${n}::int`} as n`;
    // a template array belongs to its literal: both calls share theirs
    const first = compile(sql, build(1));
    const again = compile(sql, build(2));
    expect(again.built).toBe(false);
    expect(again.text).toBe(first.text);
    expect(again.values).toEqual([2]);
  });

  it('merged: an equal value of the same inferred type is bound once, with the rows of the tagged statement', async () => {
    const doc = { k: 1 };
    const build = (q: Sql, a: string, b: string, n: number) => q`
      select ${a}::text as t1, ${b}::text as t2, ${a} as plain, ${a}::varchar as v,
        ${n}::int as n1, ${String(n)}::int as n2, ${n}::int as n3, ${q.json(doc)}::jsonb as j1,
        ${q.json(doc)}::jsonb as j2, ${a}::text = ${b}::text as same`;
    const run = async (a: string, b: string, n: number) => {
      const tagged = await sql`${build(sql, a, b, n)}`;
      let recorded: unknown;
      const merged = await sent(
        async () =>
          (recorded = await prepared(sql, build(recording(sql), a, b, n), { merge: true })),
      );
      expect(merged.error).toBeUndefined();
      expect(recorded).toEqual(tagged);
      // the shape's first run reads its places' types first (Describe): the statement is the last
      return merged.sent.at(-1)!;
    };
    // 'x' text in four places (::text, and uncast in the select list: inferred text), ::varchar
    // apart; 5 ::int twice ('5' is a string: its own), the JSON values apart
    const equal = await run('x', 'x', 5);
    expect(equal.parameters).toEqual(['x', 'x', 5, '5', doc, doc]);
    expect(equal.text).toMatch(/\$1::text as t1, \$1::text as t2, \$1 as plain, \$2::varchar/);
    expect(equal.text).toMatch(/\$3::int as n1, \$4::int as n2, \$3::int as n3/);
    expect(equal.text).toMatch(/\$5::jsonb as j1,\s+\$6::jsonb as j2, \$1::text = \$1::text/);
    // the same shape with its values falling otherwise: its own text, right each time
    const apart = await run('x', 'y', 6);
    expect(apart.parameters).toEqual(['x', 'y', 'x', 6, '6', doc, doc]);
    expect(apart.text).toMatch(/\$1::text as t1, \$2::text as t2, \$1 as plain, \$3::varchar/);
    expect(apart.text).toMatch(/\$4::int as n1, \$5::int as n2, \$4::int as n3/);
    expect(apart.text).toMatch(/\$1::text = \$2::text/);
    expect((await run('x', 'x', 7)).text).toBe(equal.text);
    expect((await run('p', 'q', 8)).text).toBe(apart.text);
  });

  it('merged: keyed by the type each place is inferred, not by the cast written after it', async () => {
    // '5' uncast in `+ 1` is an integer, uncast in `= 'x'::text` a text: one `$n` for both
    // could not be prepared (integer = text); the int4 written two ways is one type
    const build = (q: Sql, v: string) => q`
      select ${v} + 1 as n, ${v} = ${'x'}::text as s, ${v}::int4 as a, ${v}::integer as b,
        ${v}::text as t, ${v} || ${'y'}::text as u`;
    const first = await sent(() => prepared(sql, build(recording(sql), '5'), { merge: true }));
    expect(first.error).toBeUndefined();
    const tagged = await sql`${build(sql, '6')}`;
    let rows: unknown;
    const again = await sent(
      async () => (rows = await prepared(sql, build(recording(sql), '6'), { merge: true })),
    );
    expect(again.error).toBeUndefined();
    expect(rows).toEqual(tagged);
    expect(rows).toEqual([{ n: 7, s: false, a: 6, b: 6, t: '6', u: '6y' }]);
    // the types were read once for the shape: the second run is the statement alone, merged
    expect(again.sent).toHaveLength(1);
    const statement = again.sent[0]!;
    expect(statement.parameters).toEqual(['6', '6', 'x', 'y']);
    expect(statement.text).toMatch(
      /\$1 \+ 1 as n, \$2 = \$3::text as s, \$1::int4 as a, \$1::integer/,
    );
    expect(statement.text).toMatch(/\$2::text as t, \$2 \|\| \$4::text as u/);
  });

  it('merged: a statement the database refuses fails with its own error, in a transaction too', async () => {
    // the shape's first run asks the database its places' types: that refusal is the statement's
    const build = (q: Sql) => q`select no_such_function(${'x'}) as a, ${'x'}::text as b`;
    const code = (e: unknown) => (e as { code?: string }).code;
    const tagged: unknown = await sql`${build(sql)}`.catch((e: unknown) => e);
    const alone: unknown = await prepared(sql, build(recording(sql)), { merge: true }).catch(
      (e: unknown) => e,
    );
    let inTransaction: unknown;
    await sql
      .begin(async (tx) => {
        inTransaction = await prepared(tx, build(recording(tx as unknown as Sql)), {
          merge: true,
        }).catch((e: unknown) => e);
      })
      .catch(() => undefined);
    expect(code(tagged)).toBe('42883');
    expect(code(alone)).toBe('42883');
    expect(code(inTransaction)).toBe('42883');
  });

  it('merged: past 8 ways of falling per shape, the shape is sent unmerged', async () => {
    const build = (q: Sql, [a, b, c, d]: string[]) =>
      q`select ${a!}::text as a, ${b!}::text as b, ${c!}::text as c, ${d!}::text as d`;
    // 14 ways 4 values can fall with a repeat: the first 8 merged, then unmerged
    const ways = [
      'aaaa',
      'aaab',
      'aaba',
      'abaa',
      'baaa',
      'aabb',
      'abab',
      'abba',
      'aabc',
      'abac',
      'abca',
      'baac',
      'baca',
      'bcaa',
    ].map((w) => [...w].map((c) => `${c}-merge-bound`));
    const counts: number[] = [];
    for (const xs of ways) {
      let rows: unknown;
      const merged = await sent(
        async () => (rows = await prepared(sql, build(recording(sql), xs), { merge: true })),
      );
      expect(merged.error).toBeUndefined();
      expect(rows).toEqual([{ a: xs[0], b: xs[1], c: xs[2], d: xs[3] }]);
      counts.push(merged.sent.at(-1)!.parameters.length);
    }
    expect(counts).toEqual([1, 2, 2, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4]);
  });

  it('merged: concurrent first runs of a shape keep one entry of its kinds, so other kinds still merge', async () => {
    const build = (q: Sql, a: string, at: Date | string) =>
      q`select ${a}::text as burst1, ${a}::text as burst2, ${at}::timestamptz as at`;
    // ten first runs at once, one kind of values (a Date is sent typed): each reads the types
    const burst = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        prepared(sql, build(recording(sql), `b${i}`, new Date(Date.UTC(2026, 0, i + 1))), {
          merge: true,
        }),
      ),
    );
    expect(burst.map((rows) => (rows as unknown as { burst1: string }[])[0]!.burst1)).toEqual(
      Array.from({ length: 10 }, (_, i) => `b${i}`),
    );
    // another kind (the time as a string, sent untyped) is still read and merged
    const other = await sent(() =>
      prepared(sql, build(recording(sql), 'z', '2026-02-03T00:00:00Z'), { merge: true }),
    );
    expect(other.error).toBeUndefined();
    expect(other.sent.at(-1)!.text).toMatch(/\$1::text as burst1, \$1::text as burst2/);
  });

  it('merged: nothing merged when a `$` in the text is not a value of its own', async () => {
    const build = (q: Sql) => q`select '$1' as lit, ${'x'}::text as a, ${'x'}::text as b`;
    const merged = await sent(() => prepared(sql, build(recording(sql)), { merge: true }));
    expect(merged.error).toBeUndefined();
    expect(merged.sent.at(-1)!.parameters).toEqual(['x', 'x']);
  });

  it('refuses the helpers whose text depends on their values', () => {
    const r = recording(sql);
    expect(() => compile(sql, r`insert into x ${sql({ a: 1 } as never)}`)).toThrow(
      'prepared statements take tagged fragments, identifiers and values only',
    );
  });

  it('fails as the tagged statement fails (undefined values, database errors)', async () => {
    const undef = await bothWays((q) => q`select ${undefined as never}::int`);
    expect(String(undef.b.error)).toBe(String(undef.a.error));
    expect(String(undef.a.error)).toMatch(/Undefined values are not allowed/);
    const bad = await bothWays((q) => q`select ${'x'}::int`);
    expect((bad.b.error as { code?: string }).code).toBe('22P02');
    expect((bad.a.error as { code?: string }).code).toBe('22P02');
    expect(bad.b.sent).toEqual(bad.a.sent);
  });

  it('a real piece (the nonce claim) in a rolled-back transaction, both ways alike', async () => {
    const payment = {
      payer: `0x${'ab'.repeat(20)}`,
      nonce: `0x${'cd'.repeat(32)}`,
      resource: 'https://marketplace.test/x',
      validBefore: Math.floor(Date.now() / 1000) + 60,
    };
    const build = (q: Db) =>
      q`with gate as (select true as ok), claimed as (
        ${nonceInsert(q as Sql, 'paid', payment as never, { when: q`(select ok from gate)`, onConflict: 'fail', returning: true })}
      ) select count(*)::int as n from claimed`;
    const rolledBack = async (run: (tx: Db) => Promise<unknown>) => {
      let rows: unknown;
      await sql
        .begin(async (tx) => {
          rows = await run(tx);
          throw new Error('rollback');
        })
        .catch((e: Error) => {
          if (e.message !== 'rollback') throw e;
        });
      return rows;
    };
    let tagged: unknown, recorded: unknown;
    const a = await sent(async () => (tagged = await rolledBack((tx) => tx`${build(tx)}`)));
    const b = await sent(
      async () => (recorded = await rolledBack((tx) => prepared(tx, build(recording(tx as Sql))))),
    );
    expect(a.error).toBeUndefined();
    expect(b.error).toBeUndefined();
    expect(b.sent.filter((s) => /claimed/.test(s.text))).toEqual(
      a.sent.filter((s) => /claimed/.test(s.text)),
    );
    expect(recorded).toEqual(tagged);
    expect(recorded).toEqual([{ n: 1 }]);
  });
});

describe('the completing statements as served', () => {
  const LEGAL = { policy_accepted: true, license_accepted: true };
  const acquire = (itemId: string, header?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/items/${itemId}/acquire`,
      payload: header ? LEGAL : {},
      ...(header && { headers: { 'payment-signature': header } }),
    });

  /**
   * Each shape of purchase once through the served path, its statement captured, and the same
   * fragments (recorded by a tag that also keeps them) sent again as a tagged postgres.js query in
   * a rolled-back transaction: the same text, values and types.
   */
  it('a first-time, a repeat, an identified and a stepwise purchase: what postgres.js sends', async () => {
    const { payments } = t.runtime.deps;
    const store = payments.store as unknown as { recorded: Sql };
    const real = store.recorded;
    const trees: SqlFragment[] = [];
    // the store's tag, keeping every fragment it records (the last one of a completion is the statement)
    const keeping = ((strings: TemplateStringsArray, ...args: unknown[]) => {
      const f = (real as unknown as (...a: unknown[]) => SqlFragment)(strings, ...args);
      trees.push(f);
      return f;
    }) as unknown as Sql;
    Object.assign(keeping, { json: sql.json });
    store.recorded = keeping;
    const item = await createSaleItem(t.runtime.deps, { priceUsdc: 0.5 });
    const buyer = idPayer(newWallet());
    const cases: [string, () => Promise<void>][] = [
      ['first-time', async () => void (await buy())],
      ['repeat', async () => void (await buy())],
      ['identified', async () => void (await buy(generatePaymentId()))],
      [
        'stepwise',
        async () => {
          payments.testHooks.afterSettle = async () => {};
          try {
            await buy();
          } finally {
            payments.testHooks.afterSettle = undefined;
          }
        },
      ],
    ];
    async function buy(id?: string) {
      const signed = await buyer.sign(promptOf(await acquire(item.itemId)), id);
      const res = await acquire(item.itemId, signed.header);
      expect(res.statusCode).toBe(200);
    }
    try {
      for (const [name, run] of cases) {
        trees.length = 0;
        const served = await sent(run);
        expect(served.error, name).toBeUndefined();
        const statement = served.sent.findLast((s) => /insert into orders/.test(s.text));
        expect(statement, name).toBeDefined();
        // the statement was recorded (no postgres.js `Query` of its own) and sent prepared
        expect(trees.length, name).toBeGreaterThan(5);
        const tree = trees.at(-1)!;
        // every fragment recorded, the facilitator's transfer and the sale's condition included
        expect(queriesIn(tree), name).toBe(0);
        // the same fragments as tagged postgres.js queries, in a transaction rolled back
        const tagged = await sent(() =>
          sql.begin(async (tx) => {
            await tx`${toQuery(tx, tree) as SqlFragment}`.catch(() => undefined);
            throw new Error('rollback');
          }),
        );
        const built = tagged.sent.filter((s) => /insert into orders/.test(s.text));
        expect(built, name).toHaveLength(1);
        // the same statement with its equal values bound once: unmerged, exactly what postgres.js sent
        expect(unmerged(statement!), name).toEqual(built[0]);
        expect(statement!.parameters.length, name).toBeLessThan(built[0]!.parameters.length);
        // and each merged `$n` is inferred the type every place it stands for had on its own
        const [alone, merged] = await Promise.all(
          [built[0]!, statement!].map((s) =>
            sql.unsafe(s.text, s.parameters as never[], { prepare: true }).describe(),
          ),
        );
        const slots = [...statement!.text.matchAll(/\$([0-9]+)/g)].map((m) => Number(m[1]) - 1);
        expect(
          slots.map((k) => merged!.types[k]),
          name,
        ).toEqual(alone!.types);
      }
    } finally {
      store.recorded = real;
    }
    expect(await moneyOf(sql, buyer.address, item.itemId)).toEqual({ transfers: 4, orders: 4 });
  });
});

describe('the paid listing as served', () => {
  it('merges equal values, each merged `$n` inferred the type its places had alone', async () => {
    const selling = await startSellingApp();
    try {
      const db = selling.runtime.deps.sql;
      const options = db.options as { debug?: unknown };
      const seen: Sent[] = [];
      options.debug = (_c: number, text: string, parameters: unknown[], types: unknown[]) =>
        seen.push({ text, parameters: [...parameters], types: [...types] });
      try {
        await listItem(selling, newWallet(), { bytes: zipOf(uniqueProject()) });
      } finally {
        delete options.debug;
      }
      const statement = seen.findLast((s) => /ledger_gate as/.test(s.text));
      expect(statement).toBeDefined();
      const alone = unmerged(statement!);
      expect(statement!.parameters.length).toBeLessThan(alone.parameters.length);
      const [a, m] = await Promise.all(
        [alone, statement!].map((s) =>
          db.unsafe(s.text, s.parameters as never[], { prepare: true }).describe(),
        ),
      );
      const slots = [...statement!.text.matchAll(/\$([0-9]+)/g)].map((x) => Number(x[1]) - 1);
      expect(slots.map((k) => m!.types[k])).toEqual(a!.types);
    } finally {
      await selling.close();
    }
  });
});

/**
 * A statement whose equal values were merged (one `$n` in several places), as it would be sent
 * with one `$n` per place: the text renumbered in order, each place's value and type repeated.
 */
function unmerged(s: Sent): Sent {
  const parameters: unknown[] = [];
  const types: unknown[] = [];
  const text = s.text.replace(/\$([0-9]+)/g, (_, k: string) => {
    parameters.push(s.parameters[Number(k) - 1]);
    types.push(s.types[Number(k) - 1]);
    return `$${parameters.length}`;
  });
  return { text, parameters, types };
}

/** How many postgres.js `Query` objects (a `Promise` subclass each) sit in a recorded tree. */
function queriesIn(f: unknown): number {
  if (Array.isArray(f)) return f.reduce((n: number, x) => n + queriesIn(x), 0);
  const r = f as { strings?: TemplateStringsArray; args?: unknown[] } | undefined;
  if (!r || typeof r !== 'object' || !Array.isArray(r.args)) return 0;
  return (r instanceof Promise ? 1 : 0) + queriesIn(r.args);
}

/** A recorded tree as postgres.js's own fragments (what the tagged path builds). */
function toQuery(tag: Db, f: unknown): unknown {
  const r = f as { strings?: TemplateStringsArray; args?: unknown[] } | undefined;
  if (r && r.constructor?.name === 'Recorded') {
    return (tag as unknown as (...a: unknown[]) => unknown)(
      r.strings as unknown,
      ...r.args!.map((a) =>
        Array.isArray(a) && a[0]?.constructor?.name === 'Recorded'
          ? a.map((x) => toQuery(tag, x))
          : toQuery(tag, a),
      ),
    );
  }
  return f;
}
