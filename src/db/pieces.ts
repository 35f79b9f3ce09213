import type postgres from 'postgres';
import { BoundedCache } from '../bounded-cache.js';
import type { SqlFragment } from './index.js';

type Fragment = SqlFragment;

/**
 * One named part of a statement: the common table expression `name` (it may define private CTEs
 * before it, e.g. `agent_known` before `agent`), reading only the relations `needs` that earlier
 * pieces name. `sql` is written `x as (...)` (or `a as (...), name as (...)`), without the comma
 * that separates it from the piece before.
 */
export interface Piece<Name extends string, Needs extends string = never> {
  readonly name: Name;
  readonly needs: readonly Needs[];
  readonly sql: Fragment;
}

export function piece<Name extends string, Needs extends string = never>(
  name: Name,
  needs: readonly Needs[],
  sql: Fragment,
): Piece<Name, Needs> {
  return { name, needs, sql };
}

/** A piece in its place: `lead` is the whitespace written after the comma before it. */
interface Placed {
  readonly piece: Piece<string, string>;
  readonly lead: string;
}

/**
 * The pieces of one statement, in order. Each `then` is checked when the statement is built:
 * every relation a piece needs must be named by an earlier piece or `given` (by the statement the
 * pieces are spliced into), by the type checker (`Named`) and again at run time. So the CTE names
 * are a checked contract instead of strings that must agree across files.
 */
export class Pieces<Named extends string, Given extends string = never> {
  private constructor(
    readonly given: readonly Given[],
    readonly list: readonly Placed[],
  ) {}

  /** No piece yet; the relations `given` come from the statement these pieces join. */
  static given<G extends string = never>(...given: G[]): Pieces<G, G> {
    return new Pieces<G, G>(given, []);
  }

  private named(): Set<string> {
    return new Set<string>([...this.given, ...this.list.map((p) => p.piece.name)]);
  }

  /**
   * Appends a piece. `lead`, whitespace only, lays the statement out (each statement keeps the
   * text it had when written in one template, so its prepared form and plans stay the same).
   */
  then<N extends string>(p: Piece<N, Named>, lead = ' '): Pieces<Named | N, Given> {
    const named = this.named();
    const missing = p.needs.filter((n) => !named.has(n));
    if (missing.length) throw new Error(`piece ${p.name} needs ${missing.join(', ')} before it`);
    if (named.has(p.name)) throw new Error(`piece ${p.name} is named twice`);
    if (!/^\s*$/.test(lead)) throw new Error(`piece ${p.name}: lead must be whitespace`);
    return new Pieces<Named | N, Given>(this.given, [...this.list, { piece: p, lead }]);
  }

  /** Appends pieces written against relations `G` that this statement names by now. */
  join<N extends string, G extends Named>(more: Pieces<N, G>): Pieces<Named | N, Given> {
    const named = this.named();
    const missing = more.given.filter((n) => !named.has(n));
    if (missing.length) throw new Error(`pieces need ${missing.join(', ')} before them`);
    let all = this as Pieces<string, Given>;
    for (const p of more.list) all = all.then(p.piece, p.lead);
    return all as Pieces<Named | N, Given>;
  }

  /** The same pieces, the first one after `lead` (as the statement they join lays them out). */
  leadingWith(lead: string): Pieces<Named, Given> {
    const [first, ...rest] = this.list;
    if (!first) return this;
    return new Pieces<Named, Given>(this.given, [{ piece: first.piece, lead }, ...rest]);
  }

  /**
   * `with` and the pieces, comma-separated, for a statement that names every relation given.
   * The template is the same array for every statement of the same layout, as a literal's is:
   * postgres.js keys a cache on it (one `Error` with its captured stack per template, kept for
   * the life of the process), so a new array per call cost a stack capture per purchase and
   * kept every purchase's pieces (its signed payment among them) alive in that cache.
   */
  with(sql: postgres.Sql | postgres.TransactionSql): Fragment {
    if (this.given.length) throw new Error(`a statement must name ${this.given.join(', ')}`);
    if (!this.list.length) throw new Error('a statement needs at least one piece');
    const strings = [
      `with${this.list[0]!.lead}`,
      ...this.list.slice(1).map((p) => `,${p.lead}`),
      '',
    ];
    const template = TEMPLATES.get(strings.join('\0'), () =>
      Object.freeze(Object.assign(strings.slice(), { raw: Object.freeze(strings.slice()) })),
    );
    return (sql as postgres.Sql)(
      template as unknown as TemplateStringsArray,
      ...this.list.map((p) => p.piece.sql),
    ) as unknown as Fragment;
  }
}

/** The `with` templates by layout (a few per process: one per statement shape). */
const TEMPLATES = new BoundedCache<string, readonly string[]>(256);
