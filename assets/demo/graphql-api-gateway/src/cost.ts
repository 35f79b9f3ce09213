import { Kind, type DocumentNode, type FieldNode, type SelectionSetNode } from 'graphql';

/**
 * Estimated cost of a query: every field costs 1, and a list field's selection is multiplied by
 * its `first`/`limit` argument (default 10), so deep pagination cannot hide an expensive query.
 */
export function queryCost(doc: DocumentNode): number {
  const costOf = (set: SelectionSetNode | undefined, multiplier: number): number => {
    if (!set) return 0;
    let total = 0;
    for (const sel of set.selections) {
      if (sel.kind !== Kind.FIELD) {
        if (sel.kind === Kind.INLINE_FRAGMENT) total += costOf(sel.selectionSet, multiplier);
        continue;
      }
      total += multiplier * (1 + costOf(sel.selectionSet, pageSize(sel)));
    }
    return total;
  };
  return doc.definitions.reduce(
    (sum, def) => sum + (def.kind === Kind.OPERATION_DEFINITION ? costOf(def.selectionSet, 1) : 0),
    0,
  );
}

function pageSize(field: FieldNode): number {
  const arg = field.arguments?.find((a) => a.name.value === 'first' || a.name.value === 'limit');
  if (arg?.value.kind === Kind.INT) return Math.max(1, Number(arg.value.value));
  return field.selectionSet ? 10 : 1;
}
