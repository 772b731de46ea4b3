/**
 * A name's key: two names with the same key are equal but for case, spacing
 * and punctuation. The database computes the same key (`name_key` and
 * `alias_keys`, migration 034) and indexes entities' names and aliases by it,
 * so a create finds its near twins in one index lookup; `likely.test.ts`
 * checks that both compute it alike, character by character.
 *
 * Defined by explicit tables, never by `lower()` or a locale: PGlite and
 * PostgreSQL may run under other locales, and an index must not change with
 * one.
 * - Case: the upper-case letters of Latin (basic, Latin-1, Extended-A), Greek
 *   and Cyrillic become lower case, one letter for one ("Σ" is left as it is:
 *   its lower case depends on its place in a word). Other scripts keep theirs.
 * - Accents count: "José" and "Jose" have two keys (the finder still proposes
 *   them, "same name but for accents").
 * - "++" is "pp", "+" "plus", "#" "sharp" and "&" "and", as names.ts reads
 *   them, so "C++" is not "C", nor "C#".
 * - Removed: ASCII punctuation, symbols, spaces and control characters; the
 *   same of Latin-1 (not its letters, ª º µ, nor ¹ ² ³ ¼ ½ ¾); and the General
 *   Punctuation block (U+2000–U+206F: dashes, curly quotes, odd spaces).
 * - At most NAME_KEY_MAX characters kept, so an index entry stays small
 *   whatever a stored name holds.
 */

/** Characters a key keeps at most: the longest name the write doors take (ENTITY_NAME_MAX). */
export const NAME_KEY_MAX = 500;

/** Upper-case letters and their lower case, in the same order (migration 034 holds the same two strings). */
const UPPER =
  'ABCDEFGHIJKLMNOPQRSTUVWXYZÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖØÙÚÛÜÝÞĀĂĄĆĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮĲĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽΆΈΉΊΌΎΏΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΤΥΦΧΨΩΪΫЀЁЂЃЄЅІЇЈЉЊЋЌЍЎЏАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯҐ';
const LOWER =
  'abcdefghijklmnopqrstuvwxyzàáâãäåæçèéêëìíîïðñòóôõöøùúûüýþāăąćĉċčďđēĕėęěĝğġģĥħĩīĭįĳĵķĺļľŀłńņňŋōŏőœŕŗřśŝşšţťŧũūŭůűųŵŷÿźżžάέήίόύώαβγδεζηθικλμνξοπρτυφχψωϊϋѐёђѓєѕіїјљњћќѝўџабвгдежзийклмнопрстуфхцчшщъыьэюяґ';

/**
 * What a key leaves out, as the body of a bracket expression both regular
 * expression engines read alike (code points, no classes); migration 034
 * holds the same text.
 */
const REMOVED =
  '\\u0001-\\u002f\\u003a-\\u0040\\u005b-\\u0060\\u007b-\\u00a9\\u00ab-\\u00b1\\u00b4\\u00b6-\\u00b8\\u00bb\\u00bf\\u00d7\\u00f7\\u2000-\\u206f';

const LOWER_OF = new Map([...UPPER].map((letter, index) => [letter, [...LOWER][index]!]));
const UPPER_LETTERS = new RegExp(`[${UPPER}]`, 'gu');
const REMOVED_RUNS = new RegExp(`[${REMOVED}]+`, 'gu');

/** The key of a name, as the database's `name_key` computes it. */
export function nameKey(name: string): string {
  const key = name
    .replace(UPPER_LETTERS, (letter) => LOWER_OF.get(letter)!)
    .replaceAll('++', 'pp')
    .replaceAll('+', 'plus')
    .replaceAll('#', 'sharp')
    .replaceAll('&', 'and')
    .replace(REMOVED_RUNS, '');
  // `left(…, n)` counts characters, not UTF-16 units.
  if (key.length <= NAME_KEY_MAX) return key;
  let kept = '';
  let count = 0;
  for (const character of key) {
    if (count++ === NAME_KEY_MAX) break;
    kept += character;
  }
  return kept;
}
