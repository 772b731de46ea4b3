import { errorMessage } from '@/lib/api-client';
import { formatCount } from '@/lib/format';

export { formatCount, formatDate } from '@/lib/format';

/** '1 relation', '2,500 relations'. */
export function relationCountLabel(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'relation' : 'relations'}`;
}

/** The server's explanation when it gave one (e.g. the relation exists already), else nothing. */
export function serverReason(error: unknown): string | undefined {
  return errorMessage(error, undefined);
}
