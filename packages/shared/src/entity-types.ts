/** Colours of the known entity types (docs/architecture.md, Web). */
export const KNOWN_ENTITY_TYPES = {
  concept: '#6366f1',
  person: '#10b981',
  company: '#f59e0b',
  technology: '#0ea5e9',
  product: '#ec4899',
  event: '#8b5cf6',
  observation: '#94a3b8',
} as const satisfies Record<string, string>;

/**
 * Stable colours for any other type, picked by hashing its name: each far
 * from every known type's colour and from each other (a redmean distance of
 * 100 or more, shared.test.ts), so `tool` is never drawn in `person`'s green.
 */
export const EXTRA_PALETTE = [
  '#b45309',
  '#e11d48',
  '#84cc16',
  '#64748b',
  '#0f766e',
  '#1d4ed8',
  '#fca5a5',
  '#a21caf',
] as const;

export function entityTypeColor(type: string): string {
  const known = (KNOWN_ENTITY_TYPES as Record<string, string>)[type];
  if (known) return known;
  let hash = 0;
  for (const char of type) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return EXTRA_PALETTE[hash % EXTRA_PALETTE.length]!;
}

/** 'depends_on' → 'Depends on': first letter capitalised, - and _ as spaces (docs/product.md, The signed-in app). */
export function typeLabel(type: string): string {
  const spaced = type.replace(/[-_]+/g, ' ').trim();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** Relation types offered by the relation form (docs/product.md, Forms). Other types are allowed. */
export const SUGGESTED_RELATION_TYPES = [
  'relates_to',
  'depends_on',
  'part_of',
  'uses',
  'enables',
  'based_on',
  'implements',
  'extends',
  'contains',
  'influences',
] as const;
