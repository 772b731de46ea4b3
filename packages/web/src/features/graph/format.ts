import { formatCount } from '@/lib/format';

export { formatCount, formatDate } from '@/lib/format';

/** '1 observation', '3 observations'. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : pluralForm}`;
}
