/**
 * User text inside a LIKE pattern, matched literally: `a%b_c\` → `a\%b\_c\\`
 * (PostgreSQL's default escape is the backslash). The one escaping every
 * repository uses.
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
