import { formatCount } from '@/lib/format';

function countOf(count: number, one: string, many: string): string {
  if (count === 0) return `no ${many}`;
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/**
 * The delete confirmation's line under the spec's question (issue 58): what
 * goes with the entity. `relations` is undefined while its count is not known
 * (still loading, or the count call failed).
 */
export function deleteConsequence(observations: number, relations: number | undefined): string {
  const observed = countOf(observations, 'observation', 'observations');
  if (relations === undefined) {
    return observations === 0
      ? 'It has no observations; its relations are deleted with it.'
      : `It has ${observed}; they and its relations are deleted with it.`;
  }
  if (observations === 0 && relations === 0) return 'It has no observations or relations.';
  const pronoun = observations + relations === 1 ? 'it is' : 'they are';
  return `It has ${observed} and ${countOf(relations, 'relation', 'relations')}; ${pronoun} deleted with it.`;
}
