/** Where the next page starts: the server's `nextCursor` where it gives one, else `nextOffset`. */
export type PageToken = { cursor: string } | { offset: number };

/** The next page a list answer points at, if any: `nextCursor` first, then `nextOffset`. */
export function nextPageOf(page: unknown): PageToken | undefined {
  const fields = page as { nextCursor?: unknown; nextOffset?: unknown };
  if (typeof fields.nextCursor === 'string' && fields.nextCursor !== '') {
    return { cursor: fields.nextCursor };
  }
  if (typeof fields.nextOffset === 'number') return { offset: fields.nextOffset };
  return undefined;
}

/**
 * A list read a page at a time as it is iterated: `for await (const item of
 * list)` walks every item of every page, `pages()` the answers themselves
 * (with `total`, `truncated` …). Each iteration reads from the start again.
 */
export class Paginated<Item, Page = unknown> implements AsyncIterable<Item> {
  private readonly read: (token: PageToken | undefined) => Promise<Page>;
  private readonly itemsOf: (page: unknown) => readonly Item[];

  constructor(
    read: (token: PageToken | undefined) => Promise<Page>,
    itemsOf: (page: Page) => readonly Item[],
  ) {
    this.read = read;
    this.itemsOf = itemsOf as (page: unknown) => readonly Item[];
  }

  async *pages(): AsyncGenerator<Page, void, undefined> {
    let token: PageToken | undefined;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.read(token);
      yield page;
      token = nextPageOf(page);
      if (token === undefined) return;
      // A server that pointed back at a page already read would loop forever.
      const key = JSON.stringify(token);
      if (seen.has(key)) return;
      seen.add(key);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.itemsOf(page);
  }

  /** Every item, read into memory. */
  async toArray(): Promise<Item[]> {
    const items: Item[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}

/** The query fields of a page token. */
export function tokenQuery(token: PageToken | undefined): { cursor?: string; offset?: number } {
  if (token === undefined) return {};
  return 'cursor' in token ? { cursor: token.cursor } : { offset: token.offset };
}

/** A comma-separated list (how the server takes `types`, `entities` …) from a string or an array. */
export function commaList(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(',');
}
