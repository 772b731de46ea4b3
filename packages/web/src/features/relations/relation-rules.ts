import { SUGGESTED_RELATION_TYPES, typeLabel, type TypeSummary } from '@engram/shared';

/** The relation types the form offers; any other text is allowed too (docs/product.md, Forms). */
export const RELATION_TYPE_OPTIONS: readonly string[] = SUGGESTED_RELATION_TYPES;

/**
 * The types the form's picker offers, as the entity form offers entity
 * types: the account's own (most used first; those the server found for
 * `prefix`), then the ten it does not use yet, and the relation's current
 * type if missing — the last two only when they start with `prefix`, in any
 * case, as the server's search does.
 */
export function relationTypeChoices(
  accountTypes: string[],
  current: string,
  prefix: string,
): string[] {
  const wanted = prefix.toLowerCase();
  const choices = new Set(accountTypes);
  for (const type of [...RELATION_TYPE_OPTIONS, current]) {
    if (type && type.toLowerCase().startsWith(wanted)) choices.add(type);
  }
  return [...choices];
}

export interface RelationFormValues {
  fromEntityId: string | null;
  toEntityId: string | null;
  /** The relation type as typed or chosen; trimmed before it is checked and sent. */
  type: string;
}

export type RelationFormField = 'fromEntityId' | 'toEntityId' | 'type';

export type RelationFormCheck =
  | { ok: true; input: { fromEntityId: string; toEntityId: string; type: string } }
  | { ok: false; field: RelationFormField; message: string };

/**
 * In the order of docs/product.md (Forms): 'Source entity is required', 'Target entity is
 * required', 'Relation type is required' (after trimming), then 'Source and
 * target entities cannot be the same'. The first broken rule, or the payload.
 */
export function checkRelationForm(values: RelationFormValues): RelationFormCheck {
  if (!values.fromEntityId) {
    return { ok: false, field: 'fromEntityId', message: 'Source entity is required' };
  }
  if (!values.toEntityId) {
    return { ok: false, field: 'toEntityId', message: 'Target entity is required' };
  }
  const type = values.type.trim();
  if (!type) return { ok: false, field: 'type', message: 'Relation type is required' };
  if (values.fromEntityId === values.toEntityId) {
    return {
      ok: false,
      field: 'toEntityId',
      message: 'Source and target entities cannot be the same',
    };
  }
  return {
    ok: true,
    input: { fromEntityId: values.fromEntityId, toEntityId: values.toEntityId, type },
  };
}

/** What the search and the filter read of a relation. */
export interface SearchableRelation {
  type: string;
  fromEntity: { name: string };
  toEntity: { name: string };
}

/** The search matches either end's name or the relation type, ignoring case (docs/product.md, Forms). */
export function matchesRelationSearch(relation: SearchableRelation, query: string): boolean {
  const term = query.trim().toLowerCase();
  if (!term) return true;
  return [relation.fromEntity.name, relation.toEntity.name, relation.type].some((text) =>
    text.toLowerCase().includes(term),
  );
}

/** The type filter matches exactly; null is All Types (docs/product.md, Forms). */
export function matchesRelationType(relation: SearchableRelation, type: string | null): boolean {
  return type === null || relation.type === type;
}

export function filterRelations<T extends SearchableRelation>(
  relations: T[],
  { query, type }: { query: string; type: string | null },
): T[] {
  return relations.filter(
    (relation) => matchesRelationType(relation, type) && matchesRelationSearch(relation, query),
  );
}

export interface TypeFilterOption {
  type: string;
  label: string;
  count: number;
}

/**
 * The type filter's options (docs/product.md, The signed-in app): each type with its count, most used
 * first (ties by name), labelled with the first letter capitalised and - or
 * _ turned into spaces ('depends_on' → 'Depends on (3)').
 */
export function relationTypeOptions(
  summaries: Pick<TypeSummary, 'type' | 'count'>[],
): TypeFilterOption[] {
  return [...summaries]
    .sort((a, b) => b.count - a.count || a.type.localeCompare(b.type))
    .map(({ type, count }) => ({ type, count, label: `${typeLabel(type)} (${count})` }));
}
