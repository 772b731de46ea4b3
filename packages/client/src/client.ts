import createClient from 'openapi-fetch';
import { Duplicates, Keys, Spaces, Webhooks } from './account.js';
import { unwrap, type Api } from './core.js';
import { Changes, Entities, entityHistory, Relations } from './graph.js';
import { live, type LiveEvent, type LiveOptions, type WebSocketLike } from './live.js';
import { commaList, type Paginated } from './pages.js';
import {
  exportGraph,
  importThroughServer,
  type ImportData,
  type ImportOptions,
  type ImportSummary,
} from './transfer.js';
import { retryingFetch, retryPolicy, type RetryOptions } from './transport.js';
import type { Change, ChangePage, ContextAnswer, ExportDocument, RecallAnswer } from './types.js';

export interface EngramOptions {
  /** Where Engram runs: `https://engram.example.com` (the REST API, `/ws/connect` beside it). */
  url: string;
  /**
   * The bearer credential: an API key (`eng_key_…`), or a session token for
   * the calls that take only one (`keys`). `live()` needs an API key.
   */
  apiKey: string;
  /** The memory space every call acts in (its slug): `X-Engram-Space`; the default space when absent. */
  space?: string;
  /** The account to act in, for a person in several: `X-Engram-Account`. */
  account?: string;
  /** Make `space` on the first write when it does not exist yet (`?create=1`). */
  createSpace?: boolean;
  /** A `fetch` to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
  /** A WebSocket class for `live()` where there is no global one (Node 20: `ws`'s default export). */
  WebSocket?: WebSocketLike;
  /**
   * Retries of 429 and 503 (any call) and of network errors (GET, PUT, DELETE):
   * a count (default 3), `false` for none, or the full options.
   */
  retries?: number | false | RetryOptions;
  /** Names this client on its writes' realtime events (`origin`): 8–64 letters, digits, `-`, `_`. */
  clientId?: string;
  /** More headers for every request. */
  headers?: Record<string, string>;
}

export interface RecallOptions {
  /** Results, 10 by default, at most 50. */
  limit?: number;
  /** Only observations of entities of these types. */
  types?: string | readonly string[];
  /** Only observations of these entities (names). */
  entities?: string | readonly string[];
  /** Only facts from this time on: an ISO date (`2024-03-01`) or time, UTC; inclusive. */
  since?: string;
  /** Only facts up to this time (inclusive; a date alone covers its whole day). */
  until?: string;
  /** What time words in the question ("last week") are read against (default: the server's time). */
  now?: string;
  /**
   * Whether recall may answer nothing when even its best match is too weak
   * (`abstained: true` in the answer). The server's default: true.
   */
  abstain?: boolean;
}

/** `context()`'s options: the budget, and recall's time range. */
export interface ContextOptions extends Pick<RecallOptions, 'since' | 'until' | 'now' | 'abstain'> {
  /** Most characters of context: 4,000 by default, 200 to 20,000. */
  maxChars?: number;
}

/** `abstain` as the query string takes it. */
const flag = (value: boolean | undefined) =>
  value === undefined ? undefined : value ? ('true' as const) : ('false' as const);

/**
 * A client of one Engram server, acting with one credential in one space.
 *
 * ```ts
 * const engram = new Engram({ url: 'http://127.0.0.1:8787', apiKey: process.env.ENGRAM_API_KEY! });
 * for await (const entity of engram.entities.list({ types: ['person'] })) console.log(entity.name);
 * ```
 */
export class Engram {
  /** Every route, typed from the server's OpenAPI document: `api.GET('/api/…', { params })`. */
  readonly api: Api;
  readonly entities: Entities;
  readonly relations: Relations;
  readonly changes: Changes;
  readonly duplicates: Duplicates;
  readonly spaces: Spaces;
  readonly keys: Keys;
  readonly webhooks: Webhooks;

  constructor(private readonly options: EngramOptions) {
    if (!options.url) throw new TypeError('Engram: `url` is required');
    if (!options.apiKey) throw new TypeError('Engram: `apiKey` is required');
    const headers: Record<string, string> = {
      ...options.headers,
      authorization: `Bearer ${options.apiKey}`,
    };
    if (options.space) headers['x-engram-space'] = options.space;
    if (options.account) headers['x-engram-account'] = options.account;
    if (options.clientId) headers['x-engram-client'] = options.clientId;
    const base = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    const send = options.createSpace ? creatingSpace(base) : base;
    this.api = createClient({
      baseUrl: options.url.replace(/\/+$/, ''),
      headers,
      fetch: retryingFetch(send, retryPolicy(options.retries)),
    });
    this.entities = new Entities(this.api);
    this.relations = new Relations(this.api);
    this.changes = new Changes(this.api);
    this.duplicates = new Duplicates(this.api);
    this.spaces = new Spaces(this.api);
    this.keys = new Keys(this.api);
    this.webhooks = new Webhooks(this.api);
  }

  /** The same client acting in another space. */
  withSpace(space: string, options: { create?: boolean } = {}): Engram {
    return new Engram({ ...this.options, space, createSpace: options.create });
  }

  /** The observations that answer a question in plain words, best first. */
  recall(question: string, options: RecallOptions = {}): Promise<RecallAnswer> {
    return unwrap(
      this.api.GET('/api/recall', {
        params: {
          query: {
            q: question,
            limit: options.limit,
            types: commaList(options.types),
            entities: commaList(options.entities),
            since: options.since,
            until: options.until,
            now: options.now,
            abstain: flag(options.abstain),
          },
        },
      }),
    );
  }

  /** What the memory knows about a question as one block of text for a prompt (`maxChars`, 4,000 by default). */
  context(question: string, options: ContextOptions = {}): Promise<ContextAnswer> {
    const { abstain, ...rest } = options;
    return unwrap(
      this.api.GET('/api/context', {
        params: { query: { q: question, ...rest, abstain: flag(abstain) } },
      }),
    );
  }

  /** Every change to one entity, its observations and relations, newest first. */
  history(entityId: string, options: { limit?: number } = {}): Paginated<Change, ChangePage> {
    return entityHistory(this.api, entityId, options);
  }

  /**
   * The space's graph: Engram's lossless JSON (`json`, parsed), the reference
   * server's JSONL (text), or Markdown notes in basic-memory's format (`markdown`:
   * the zip's bytes).
   */
  export(options?: { format?: 'json' }): Promise<ExportDocument>;
  export(options: { format: 'jsonl' }): Promise<string>;
  export(options: { format: 'markdown' }): Promise<Uint8Array>;
  export(
    options: { format?: 'json' | 'jsonl' | 'markdown' } = {},
  ): Promise<ExportDocument | string | Uint8Array> {
    return exportGraph(this.api, options.format ?? 'json');
  }

  /**
   * Writes a graph into the space through `POST /api/import?format=`: the
   * reference server's JSONL (text), an Engram export (its JSON text or the
   * parsed document), a mem0 export (`format: 'mem0'`), or a zip of Markdown
   * notes (`format: 'markdown'`, its bytes). Names, observation texts and
   * relations the space has are skipped: importing twice adds nothing.
   */
  import(data: ImportData, options: ImportOptions = {}): Promise<ImportSummary> {
    return importThroughServer(this, data, options);
  }

  /**
   * The space's changes as they happen, over the realtime WebSocket, resuming
   * after the last event seen when the connection drops (from `lastSeq` when
   * given). `resync_required` items say events were missed: reload, then read on.
   */
  live(options: LiveOptions = {}): AsyncIterable<LiveEvent> & { close(): void } {
    return live(this.options, options);
  }
}

/** A fetch that adds `create=1` to writes, so the space they name is made on first use. */
function creatingSpace(fetchImpl: (request: Request) => Promise<Response>) {
  return async (request: Request) => {
    if (request.method === 'GET') return fetchImpl(request);
    const url = new URL(request.url);
    url.searchParams.set('create', '1');
    const body = request.body === null ? null : await request.arrayBuffer();
    const { method, headers, signal } = request;
    return fetchImpl(new Request(url, { method, headers, signal, body }));
  };
}
