/**
 * Two spellings compared letter by letter (names.ts): pure, bounded work
 * whatever the strings hold.
 */

/** Letters compared at most by `editDistance`: past them two strings are too long to be one typo apart. */
export const EDIT_COMPARED_MAX = 1_000;

/**
 * Optimal string alignment distance (Levenshtein with adjacent
 * transpositions), stopping past `max`: `max + 1` then. Three rows of memory,
 * and only the cells within `max` of the diagonal, so two long names cost
 * little; strings longer than EDIT_COMPARED_MAX are not compared (`max + 1`
 * unless equal).
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a.length > EDIT_COMPARED_MAX || b.length > EDIT_COMPARED_MAX) return max + 1;
  const n = b.length;
  // Cells further than `max` from the diagonal exceed it: only the band is computed.
  const band = Math.min(max, Math.max(a.length, n));
  const far = max + 1;
  let before = new Array<number>(n + 1).fill(far);
  let previous = Array.from({ length: n + 1 }, (_, j) => (j <= band ? j : far));
  let current = new Array<number>(n + 1).fill(far);
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - band);
    const to = Math.min(n, i + band);
    current[from - 1] = from === 1 ? i : far;
    if (to < n) current[to + 1] = far;
    let best = current[from - 1]!;
    for (let j = from; j <= to; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, before[j - 2]! + 1);
      }
      current[j] = value;
      best = Math.min(best, value);
    }
    if (best > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  const distance = previous[n]!;
  return distance > max ? max + 1 : distance;
}

function trigrams(text: string): Set<string> {
  const grams = new Set<string>();
  for (const word of text.split(' ').filter(Boolean)) {
    const padded = `  ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) grams.add(padded.slice(i, i + 3));
  }
  return grams;
}

/** Trigram similarity as pg_trgm's `similarity` computes it. */
export function trigramSimilarity(a: string, b: string): number {
  const ga = trigrams(a);
  const gb = trigrams(b);
  if (ga.size === 0 || gb.size === 0) return 0;
  let shared = 0;
  for (const gram of ga) if (gb.has(gram)) shared += 1;
  return shared / (ga.size + gb.size - shared);
}
