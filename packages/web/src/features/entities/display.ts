import { errorMessage } from '@/lib/api-client';
import { formatCount } from '@/lib/format';

export { formatCount, formatDate, formatDateTime } from '@/lib/format';

/** The entity page's address (/entities/{id}). */
export const entityPath = (id: string) => `/entities/${encodeURIComponent(id)}`;

/** '1 entity', '5,000 entities' (docs/product.md, The signed-in app: the grid's count label). */
export function entityCountLabel(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'entity' : 'entities'}`;
}

/** '1 observation', '3 observations'. */
export function observationCountLabel(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'observation' : 'observations'}`;
}

/** The server's explanation when it gave one (a name taken, a plan limit), else nothing. */
export function serverReason(error: unknown): string | undefined {
  return errorMessage(error, undefined);
}

/** A card previews at most 3 metadata keys (docs/product.md, Numbers). */
export const METADATA_PREVIEW_KEYS = 3;

export interface MetadataPair {
  key: string;
  value: string;
}

/**
 * The first `max` metadata entries as key:value text, in the object's order:
 * strings as they are, anything else as compact JSON.
 */
export function metadataPreview(
  metadata: Record<string, unknown>,
  max = METADATA_PREVIEW_KEYS,
): MetadataPair[] {
  return Object.entries(metadata)
    .slice(0, max)
    .map(([key, value]) => ({
      key,
      value: typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)),
    }));
}
