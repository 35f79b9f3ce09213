import type postgres from 'postgres';
import type { Db, Sql, SqlFragment } from './index.js';

/**
 * A statement assembled from many fragments (the purchase: ~25 of them, 65-72 values), sent as
 * its text built once per shape and its values.
 *
 * postgres.js makes every tagged fragment a `Query` (a `Promise` subclass with its closures) and
 * builds the statement's text again from those fragments on every execution; the text depends only
 * on the statement's shape (which fragments, in which order, where each value sits), never on the
 * values, each of which becomes the next `$n`. So the fragments are recorded as plain objects
 * (`recording`), and `prepared` walks them once per execution to collect the values and find the
 * shape's text in a trie keyed by the fragments' template arrays (one per template literal in the
 * source), building it, as postgres.js's `stringify` does, only the first time a shape is seen. The
 * text and values then go through `sql.unsafe(text, values, { prepare: true })`: postgres.js infers
 * each value's type exactly as it does for a tagged query (`handleValue`), so the signature, the
 * named prepared statement and the Bind are the ones the tagged statement had
 * (test/integration/prepared-statement.test.ts compares both).
 *
 * Fragments made by postgres.js itself (a `Query`) may sit among recorded ones (none of the
 * completing statement's do: its caller's condition and its facilitator's transfer are built with
 * the tag they are given). Identifiers (`sql(name)`) are part of the text; postgres.js's
 * other helpers (`sql(object)`, `sql(array)`), whose text depends on their values, are refused.
 */

/** A tagged fragment recorded as its template and values, nothing else. */
class Recorded {
  constructor(
    readonly strings: TemplateStringsArray,
    readonly args: readonly unknown[],
  ) {}
}

/** The classes postgres.js builds its fragments and helpers from (not exported: taken from instances). */
interface Kinds {
  query: abstract new (...a: never[]) => { strings: TemplateStringsArray; args: unknown[] };
  identifier: abstract new (...a: never[]) => { value: string };
  builder: abstract new (...a: never[]) => object;
  parameter: abstract new (...a: never[]) => { value: unknown };
  /** What an undefined value becomes (postgres.js's `transform.undefined`). */
  undefined: unknown;
}

const KINDS = new WeakMap<object, Kinds>();

function kindsOf(sql: Db): Kinds {
  let kinds = KINDS.get(sql);
  if (!kinds) {
    // a tagged query runs only when awaited: this one never is
    const ctor = (x: unknown) => (x as object).constructor as never;
    kinds = {
      query: ctor(sql`select 1`),
      identifier: ctor(sql('x')),
      builder: ctor(sql({ x: 1 } as never)),
      parameter: ctor(sql.json(1)),
      // a transaction's handle has no options of its own: its pool's (never set here) apply
      undefined: (sql as { options?: { transform?: { undefined?: unknown } } }).options?.transform
        ?.undefined,
    };
    KINDS.set(sql, kinds);
  }
  return kinds;
}

/**
 * The same tag as `sql` for the statement's fragments (`sql\`...\``, `sql(name)`, `sql.json`),
 * recording them instead of making `Query` objects. What it builds may only be run by `prepared`
 * or placed in what it builds; the type says `Sql` so that the statement's builders stay the ones
 * every other statement uses (one source of truth for the SQL).
 */
export function recording(sql: Sql): Sql {
  kindsOf(sql);
  const tag = (strings: unknown, ...args: unknown[]) =>
    Array.isArray((strings as TemplateStringsArray | undefined)?.raw)
      ? new Recorded(strings as TemplateStringsArray, args)
      : (sql as unknown as (...a: unknown[]) => unknown)(strings, ...args);
  return Object.assign(tag, { json: sql.json }) as unknown as Sql;
}

/** A shape's place in the trie: what follows it, and its text once built. */
interface Node {
  readonly next: Map<unknown, Node>;
  text?: string;
  values?: number;
  /** Whether each value is a `$n` of its own in the text (`$1`..`$n` in order, none in a literal). */
  numbered?: boolean;
  /**
   * The type the database infers for each place of the unmerged text (Describe), by the types
   * postgres.js sends with the values: one entry in practice, more when a value's kind varies
   * (a date or a null, say). Read once per (shape, sent types), before the first merge.
   */
  inferred?: { sent: number[]; types: readonly number[] }[];
  /** The texts with equal values merged, by which value each position takes (`merged`). */
  merged?: { slots: number[]; text: string }[];
}

const VALUE = Symbol('value');
// The shapes are few per process (one per kind of statement and buyer); a bound in case a
// template were ever made per call, which would only cost its text being built again.
const MAX_NODES = 20_000;
let root: Node = { next: new Map() };
let nodes = 0;

function step(node: Node, key: unknown): Node {
  let next = node.next.get(key);
  if (!next) {
    if (++nodes > MAX_NODES) {
      root = { next: new Map() };
      nodes = 0;
    }
    next = { next: new Map() };
    node.next.set(key, next);
  }
  return next;
}

interface Fragmentish {
  strings: TemplateStringsArray;
  args: readonly unknown[];
}

/** The statement's text and values, its text built only the first time its shape is seen. */
export function compile(
  sql: Db,
  statement: SqlFragment,
  merge = false,
): { text: string; values: unknown[]; built: boolean; describe?: Node } {
  const kinds = kindsOf(sql);
  const values: unknown[] = [];
  const isFragment = (x: unknown): x is Fragmentish =>
    x instanceof Recorded || (x instanceof kinds.query && Array.isArray(x.strings.raw));

  const walk = (node: Node, q: Fragmentish): Node => {
    node = step(node, q.strings);
    for (let i = 0; i < q.strings.length - 1; i++) {
      const v = q.args[i];
      if (isFragment(v)) node = walk(node, v);
      else if (v instanceof kinds.identifier) node = step(node, `"${v.value}`);
      else if (v instanceof kinds.builder || v instanceof kinds.query) throw unsupported();
      else if (Array.isArray(v) && isFragment(v[0])) {
        node = step(node, v.length);
        for (const f of v as unknown[]) {
          if (!isFragment(f)) throw unsupported();
          node = walk(node, f);
        }
      } else {
        // postgres.js refuses an undefined value only once the statement is sent, where an
        // unsafe statement's refusal leaves its connection broken: refused here, as it words it
        if (
          kinds.undefined === undefined &&
          (v === undefined || (v instanceof kinds.parameter && v.value === undefined))
        ) {
          throw Object.assign(new Error('UNDEFINED_VALUE: Undefined values are not allowed'), {
            code: 'UNDEFINED_VALUE',
          });
        }
        values.push(v);
        node = step(node, VALUE);
      }
    }
    return node;
  };
  if (!isFragment(statement)) throw unsupported();
  const leaf = walk(root, statement);
  let built = false;
  if (leaf.text === undefined || leaf.values !== values.length) {
    built = true;
    let n = 0;
    leaf.text = text(statement, kinds, () => ++n);
    leaf.values = n;
    leaf.numbered = numbered(leaf.text, n);
    leaf.inferred = undefined;
    leaf.merged = undefined;
  }
  if (!merge) return { text: leaf.text, values, built };
  const types = leaf.numbered ? inferredFor(leaf, kinds, values) : undefined;
  // past the bound of kinds of values read, unmerged without asking again
  const more = leaf.numbered && (leaf.inferred?.length ?? 0) < MAX_MERGED;
  if (!types) return { text: leaf.text, values, built, describe: more ? leaf : undefined };
  return { ...mergeEqual(statement, kinds, leaf, values, types), built };
}

const PLACE = /\$([0-9]+)/g;

/**
 * Whether a text's `$` places are exactly `$1`..`$n` in order (else nothing is merged: a `$`
 * inside a literal, say, would be renumbered with the values).
 */
function numbered(text: string, n: number): boolean {
  let k = 0;
  for (const m of text.matchAll(PLACE)) if (Number(m[1]) !== ++k) return false;
  return k === n;
}

/**
 * The type postgres.js sends with a value (its `inferType`, `handleValue`): 0 leaves it to the
 * database. Undefined for an array parameter (`sql.array`), whose type postgres.js works out
 * otherwise: such a statement is not merged.
 */
function sentType(x: unknown, kinds: Kinds): number | undefined {
  if (x instanceof kinds.parameter) {
    const p = x as unknown as { type: number; array?: unknown };
    return p.array ? undefined : p.type;
  }
  return inferType(x, kinds);
}

function inferType(x: unknown, kinds: Kinds): number {
  return x instanceof kinds.parameter
    ? (x as unknown as { type: number }).type
    : x instanceof Date
      ? 1184
      : x instanceof Uint8Array
        ? 17
        : x === true || x === false
          ? 16
          : typeof x === 'bigint'
            ? 20
            : Array.isArray(x)
              ? inferType(x[0], kinds)
              : 0;
}

/** The places' inferred types read for these values' sent types, if read yet. */
function inferredFor(leaf: Node, kinds: Kinds, values: unknown[]): readonly number[] | undefined {
  const known = leaf.inferred;
  if (!known) return undefined;
  next: for (const k of known) {
    for (let i = 0; i < values.length; i++)
      if (k.sent[i] !== sentType(values[i], kinds)) continue next;
    return k.types;
  }
  return undefined;
}

/**
 * Reads (Describe) the type the database infers for each place of the shape's unmerged text with
 * these values' sent types, and keeps it on the shape. False when it cannot be merged (an array
 * parameter). A Describe that fails throws what the unmerged statement's Parse would have: in a
 * transaction, running it after the failure would only be refused as the transaction aborted.
 */
async function describeShape(
  sql: Db,
  kinds: Kinds,
  leaf: Node,
  values: unknown[],
): Promise<boolean> {
  const sent: number[] = [];
  for (const v of values) {
    const t = sentType(v, kinds);
    if (t === undefined) return false;
    sent.push(t);
  }
  const text = leaf.text!;
  const described = await sql
    .unsafe(text, values as postgres.ParameterOrJSON<never>[], { prepare: true })
    .describe();
  const types = [...(described.types as number[])];
  // the shape was rebuilt meanwhile (the trie's bound): nothing kept
  if (leaf.text !== text || types.length !== values.length) return false;
  const known = (leaf.inferred ??= []);
  // concurrent first runs of one shape each Describe it: keep one entry per kind of values, so
  // that a burst of one kind cannot take every slot of the bound
  const seen = known.some((k) => k.sent.every((t, i) => t === sent[i]));
  if (!seen && known.length < MAX_MERGED) known.push({ sent, types });
  return true;
}

type Numbering = () => number;

/** The statement's text, as postgres.js's `stringify` builds it: a fragment inline, an identifier escaped, a value `$n`. */
function text(q: Fragmentish, kinds: Kinds, number: Numbering): string {
  const isFragment = (x: unknown): x is Fragmentish =>
    x instanceof Recorded || (x instanceof kinds.query && Array.isArray(x.strings.raw));
  let s = q.strings[0]!;
  for (let i = 1; i < q.strings.length; i++) {
    const v = q.args[i - 1];
    s +=
      (isFragment(v)
        ? text(v, kinds, number)
        : v instanceof kinds.identifier
          ? v.value
          : Array.isArray(v) && isFragment(v[0])
            ? (v as Fragmentish[]).reduce((acc, f) => acc + ' ' + text(f, kinds, number), '')
            : '$' + number()) + q.strings[i];
  }
  return s;
}

/**
 * Texts kept per shape for the ways its equal values fall: one in practice, a few when a buyer's
 * own values (its nonce, its payment id) happen to equal others; past this, the shape goes unmerged.
 */
const MAX_MERGED = 8;

/**
 * The statement with its equal values sent once: a string, number or bigint that an earlier value
 * equals takes that value's first `$n` of the same type instead of a `$n` of its own, the type
 * being what the database infers each place alone (a repeat buyer's purchase binds 28 distinct
 * values in 65 places, a first-time buyer's 34 in 72). Postgres gives one `$n` one type, so the
 * places are keyed by the type each was inferred (a Describe of the unmerged text, once per shape
 * and kinds of values), never by the cast written after them: `$n::int4` and `$n::integer` merge,
 * an uncast place of another type (`$n + 1`) stays apart from an equal text value. The served
 * statements' merged parameters are checked to be inferred the types each place had alone
 * (test/integration/prepared-statement.test.ts). A JSON or any other value stays a `$n` of its own.
 * Which places share a value depends on the values, so the text is kept per way they fall.
 */
function mergeEqual(
  statement: Fragmentish,
  kinds: Kinds,
  leaf: Node,
  values: unknown[],
  types: readonly number[],
): { text: string; values: unknown[] } {
  // each value's slot by the type of its places (a few types per statement)
  const byType = new Map<number, Map<unknown, number>>();
  const slots: number[] = new Array<number>(values.length);
  const distinct: unknown[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const t = typeof v;
    if (t === 'string' || t === 'number' || t === 'bigint') {
      let first = byType.get(types[i]!);
      if (!first) byType.set(types[i]!, (first = new Map()));
      const slot = first.get(v);
      if (slot !== undefined) {
        slots[i] = slot;
        continue;
      }
      first.set(v, (slots[i] = distinct.push(v)));
      continue;
    }
    slots[i] = distinct.push(v);
  }
  if (distinct.length === values.length) return { text: leaf.text!, values };
  const kept = (leaf.merged ??= []);
  for (const m of kept) if (sameSlots(m.slots, slots)) return { text: m.text, values: distinct };
  // past the bound, unmerged: each text is a prepared statement of its own for the session
  if (kept.length >= MAX_MERGED) return { text: leaf.text!, values };
  let n = 0;
  const merged = text(statement, kinds, () => slots[n++]!);
  kept.push({ slots, text: merged });
  return { text: merged, values: distinct };
}

function sameSlots(a: number[], b: number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function unsupported(): Error {
  return new Error('prepared statements take tagged fragments, identifiers and values only');
}

/**
 * Runs a statement built with `recording(sql)` (postgres.js's own fragments may sit inside) as
 * the named prepared statement postgres.js would make of it, its text built once per shape. With
 * `merge`, a shape's first run with its kinds of values reads the places' types first (one
 * Describe, kept), so that its equal values are merged from the first run on.
 */
export function prepared<T extends readonly object[]>(
  sql: Db,
  statement: SqlFragment,
  { merge = false }: { merge?: boolean } = {},
): Promise<T extends postgres.Row[] ? postgres.RowList<T> : never> {
  const { text, values, describe } = compile(sql, statement, merge);
  if (!describe) return run(sql, text, values);
  const kinds = kindsOf(sql);
  return describeShape(sql, kinds, describe, values).then((known) => {
    if (!known) return run(sql, text, values);
    const again = compile(sql, statement, true);
    return run(sql, again.text, again.values);
  });
}

/**
 * Reads the places' types of a statement's shape for its kinds of values (what `prepared` does
 * before a shape's first merged run) without running it: false when it cannot be merged.
 */
export async function describeTypes(sql: Db, statement: SqlFragment): Promise<boolean> {
  const { describe, values } = compile(sql, statement, true);
  return describe ? describeShape(sql, kindsOf(sql), describe, values) : true;
}

function run(sql: Db, text: string, values: unknown[]): Promise<never> {
  return sql.unsafe(text, values as postgres.ParameterOrJSON<never>[], {
    prepare: true,
  }) as never;
}
