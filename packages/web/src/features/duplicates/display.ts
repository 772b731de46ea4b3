/** The entity page's address (/entities/{id}). */
export const entityPath = (id: string) => `/entities/${encodeURIComponent(id)}`;

/** The Duplicates screen, with only `entityId`'s pairs when given. */
export const duplicatesPath = (entityId?: string | null) =>
  entityId ? `/duplicates?entity=${encodeURIComponent(entityId)}` : '/duplicates';

/** Observations and metadata keys a side of a pair shows before '+ N more'. */
export const OBSERVATIONS_SHOWN = 3;
export const METADATA_SHOWN = 4;

/** The first `max` metadata entries as text: strings as they are, the rest as compact JSON. */
export function metadataPairs(
  metadata: Record<string, unknown>,
  max = METADATA_SHOWN,
): { key: string; value: string }[] {
  return Object.entries(metadata)
    .slice(0, max)
    .map(([key, value]) => ({
      key,
      value: typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)),
    }));
}
