/**
 * Reads one JSON object streamed as text without holding it whole: the
 * elements of its top-level arrays named in `split` come out one at a time
 * (each element's text, for JSON.parse), and at the end the rest of the
 * object with those arrays left empty. A file larger than memory — or than
 * the longest string V8 allows (~512 MB) — is read this way.
 *
 * Only the structure is followed (strings, brackets, commas): each element
 * and the rest are then checked by JSON.parse, so text that is not JSON
 * still fails, as a `JsonSplitError` or a `SyntaxError` from that parse.
 */

export type SplitPiece =
  /** A top-level key, as soon as it is read. */
  | { kind: 'key'; key: string }
  | { kind: 'element'; array: string; index: number; text: string }
  | { kind: 'rest'; text: string };

export class JsonSplitError extends Error {
  constructor(
    message: string,
    /** The top-level keys read before the error (what the document looked like). */
    readonly keys: ReadonlySet<string>,
  ) {
    super(message);
    this.name = 'JsonSplitError';
  }
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const COMMA = 44;

/** JSON's whitespace: space, tab, line feed, carriage return. */
const isSpace = (char: number) => char === 32 || char === 9 || char === 10 || char === 13;

export async function* splitJsonObject(
  chunks: AsyncIterable<string> | Iterable<string>,
  split: ReadonlySet<string>,
): AsyncGenerator<SplitPiece> {
  const keys = new Set<string>();
  const fail = (message: string) => new JsonSplitError(message, keys);
  let depth = 0;
  let inString = false;
  let escaped = false;
  let closed = false;
  // The rest of the object: everything but the split arrays' elements.
  let rest = '';
  // The top-level key being read (where it starts in `rest`), and the last one read.
  let expectKey = false;
  let keyStart = -1;
  let key: string | undefined;
  // The split array being read (its key), the element read so far, its number, commas seen.
  let array: string | undefined;
  let element = '';
  let index = 0;
  let commas = 0;

  for await (const chunk of chunks) {
    // Where the part of this chunk not yet copied (to `rest` or to `element`) begins.
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const char = chunk.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (char === BACKSLASH) escaped = true;
        else if (char === QUOTE) {
          inString = false;
          if (keyStart >= 0) {
            rest += chunk.slice(from, i + 1);
            from = i + 1;
            key = parseKey(rest.slice(keyStart));
            keyStart = -1;
            if (key !== undefined) {
              keys.add(key);
              yield { kind: 'key', key };
            }
          }
        }
        continue;
      }
      if (isSpace(char)) continue;
      if (closed) throw fail('Text follows the JSON object');
      if (depth === 0) {
        if (char !== OPEN_OBJECT) throw fail('Not a JSON object');
        depth = 1;
        expectKey = true;
        continue;
      }
      if (char === QUOTE) {
        inString = true;
        if (depth === 1 && expectKey) {
          keyStart = rest.length + (i - from);
          expectKey = false;
        }
      } else if (char === OPEN_OBJECT || char === OPEN_ARRAY) {
        depth += 1;
        if (depth === 2 && char === OPEN_ARRAY && key !== undefined && split.has(key)) {
          rest += chunk.slice(from, i + 1);
          from = i + 1;
          array = key;
          element = '';
          index = 0;
          commas = 0;
        }
      } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
        if (array !== undefined && depth === 2) {
          // The split array ends, and with it its last element, if any.
          element += chunk.slice(from, i);
          from = i;
          if (element.trim() !== '' || commas > 0) {
            yield { kind: 'element', array, index: index++, text: element };
          }
          array = undefined;
        }
        depth -= 1;
        if (depth === 0) {
          rest += chunk.slice(from, i + 1);
          from = i + 1;
          closed = true;
        }
      } else if (char === COMMA) {
        if (array !== undefined && depth === 2) {
          element += chunk.slice(from, i);
          from = i + 1;
          commas += 1;
          yield { kind: 'element', array, index: index++, text: element };
          element = '';
        } else if (depth === 1) {
          expectKey = true;
        }
      }
    }
    if (array !== undefined) element += chunk.slice(from);
    else rest += chunk.slice(from);
  }
  if (!closed) throw fail(depth === 0 ? 'Empty document' : 'The JSON object ends early');
  yield { kind: 'rest', text: rest };
}

/** A key's text (with its quotes) as a string, if it is one. */
function parseKey(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
