import { unwrap, type Api } from './core.js';
import { EngramError } from './errors.js';
import type { Entities, Relations } from './graph.js';
import type { ExportDocument, ObservationInput } from './types.js';

/** What `import` wrote: entities and relations created, and the observations they came with. */
export interface ImportSummary {
  entities: number;
  relations: number;
  observations: number;
  /** What the import left out and why (an alias another entity has, say): at most the first 1,000. */
  skipped: { file?: string; name?: string; reason: string }[];
}

export interface ImportOptions {
  /**
   * The data's format (`POST /api/import?format=`); read from it when absent:
   * bytes are a zip of Markdown notes, an Engram export is a JSON object with
   * `format`, a mem0 export a `{ results }`, `{ memories }` or array of
   * memories, other text JSONL.
   */
  format?: ImportFormat;
}

export type ImportFormat = 'json' | 'jsonl' | 'markdown' | 'mem0';
export type ExportFormat = 'json' | 'jsonl' | 'markdown';

/** What may be imported: text (JSONL or JSON), a parsed document, or a zip's bytes. */
export type ImportData = string | ExportDocument | Uint8Array | ArrayBuffer | object | unknown[];

/**
 * The two transfer routes as openapi-fetch calls them, typed here so the
 * client builds whether or not its generated types already hold
 * `POST /api/import` (they do after the next build).
 */
interface TransferApi {
  GET(
    path: '/api/export',
    init: { params: { query: { format: ExportFormat } }; parseAs: 'text' | 'arrayBuffer' },
  ): Promise<{ data?: unknown; error?: unknown; response: Response }>;
  POST(
    path: '/api/import',
    init: {
      params: { query: { format: ImportFormat } };
      body: unknown;
      bodySerializer: (body: unknown) => BodyInit;
      headers: Record<string, string>;
    },
  ): Promise<{ data?: unknown; error?: unknown; response: Response }>;
}

/** The largest observation list one create takes (the server's `maxItems`). */
const OBSERVATIONS_PER_CALL = 1000;

export async function exportGraph(
  api: Api,
  format: ExportFormat,
): Promise<ExportDocument | string | Uint8Array> {
  if (format === 'markdown') {
    const transfer = api as unknown as TransferApi;
    const zip = await unwrap(
      transfer.GET('/api/export', { params: { query: { format } }, parseAs: 'arrayBuffer' }),
    );
    return new Uint8Array(zip as ArrayBuffer);
  }
  const text = await unwrap(api.GET('/api/export', { parseAs: 'text' }));
  const document = JSON.parse(text) as ExportDocument;
  return format === 'json' ? document : toJsonl(document);
}

/** The reference memory server's JSONL of an Engram export: entities, then relations by name. */
export function toJsonl(document: ExportDocument): string {
  const names = new Map(document.entities.map((entity) => [entity.id, entity.name]));
  const lines = document.entities.map((entity) =>
    JSON.stringify({
      type: 'entity',
      name: entity.name,
      entityType: entity.type,
      observations: entity.observations.map((observation) => observation.content),
    }),
  );
  for (const relation of document.relations) {
    const from = names.get(relation.fromEntityId);
    const to = names.get(relation.toEntityId);
    if (from === undefined || to === undefined) continue;
    lines.push(JSON.stringify({ type: 'relation', from, to, relationType: relation.type }));
  }
  return lines.map((line) => `${line}\n`).join('');
}

interface PlannedEntity {
  /** How the file's relations name it: its id in an Engram export, its name in JSONL. */
  ref: string;
  name: string;
  type: string;
  metadata?: Record<string, unknown>;
  aliases?: string[];
  observations: ObservationInput[];
}

interface Plan {
  /** Whether relations name their ends by id (an Engram export) rather than by name. */
  byId: boolean;
  entities: PlannedEntity[];
  relations: { from: string; to: string; type: string }[];
}

function invalid(message: string): EngramError {
  return new EngramError(message, { status: 400, code: 'VALIDATION_ERROR' });
}

function planOf(data: string | ExportDocument, format: 'json' | 'jsonl' | undefined): Plan {
  const text = typeof data === 'string' ? data.trim() : undefined;
  const lossless =
    format === 'json' || (format === undefined && (text === undefined || isExport(text)));
  if (lossless) {
    const document = (text === undefined ? data : JSON.parse(text)) as ExportDocument;
    if (document.format !== 'engram' || !Array.isArray(document.entities)) {
      throw invalid('Not an Engram export: expected {"format":"engram","entities":[…],…}');
    }
    return {
      byId: true,
      entities: document.entities.map((entity) => ({
        ref: entity.id,
        name: entity.name,
        type: entity.type,
        metadata: entity.metadata,
        aliases: entity.aliases,
        observations: entity.observations.map(({ content, metadata }) =>
          metadata ? { content, metadata } : content,
        ),
      })),
      relations: (document.relations ?? []).map((relation) => ({
        from: relation.fromEntityId,
        to: relation.toEntityId,
        type: relation.type,
      })),
    };
  }
  const plan: Plan = { byId: false, entities: [], relations: [] };
  (text ?? '').split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    let item: Record<string, unknown>;
    try {
      item = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw invalid(`JSONL line ${index + 1}: not valid JSON`);
    }
    if (
      item.type === 'entity' &&
      typeof item.name === 'string' &&
      typeof item.entityType === 'string'
    ) {
      const observations = Array.isArray(item.observations) ? item.observations.map(String) : [];
      plan.entities.push({ ref: item.name, name: item.name, type: item.entityType, observations });
    } else if (
      item.type === 'relation' &&
      typeof item.from === 'string' &&
      typeof item.to === 'string' &&
      typeof item.relationType === 'string'
    ) {
      plan.relations.push({ from: item.from, to: item.to, type: item.relationType });
    } else {
      throw invalid(`JSONL line ${index + 1}: not an entity or a relation of the memory server`);
    }
  });
  return plan;
}

function isExport(text: string): boolean {
  if (!text.startsWith('{')) return false;
  try {
    return (JSON.parse(text) as { format?: unknown }).format === 'engram';
  } catch {
    return false;
  }
}

/** The id of the space's entity with this name (names are unique in a space), if any. */
async function idOfName(entities: Entities, name: string): Promise<string | undefined> {
  for await (const page of entities.list({ query: name, limit: 100 }).pages()) {
    const found = page.entities.find(
      (entity) => entity.name === name || entity.aliases.includes(name),
    );
    if (found) return found.id;
    break;
  }
  return undefined;
}

/** The format of data given without one (see ImportOptions). */
function formatOfData(data: ImportData): ImportFormat {
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) return 'markdown';
  if (typeof data === 'string') {
    const text = data.trim();
    if (isExport(text)) return 'json';
    if (text.startsWith('[') || (text.startsWith('{') && /"(results|memories)"\s*:/.test(text))) {
      try {
        const value = JSON.parse(text) as unknown;
        if (Array.isArray(value) || !('type' in (value as object))) return 'mem0';
      } catch {
        // Not one JSON value: JSONL.
      }
    }
    return 'jsonl';
  }
  if (Array.isArray(data)) return 'mem0';
  return (data as { format?: unknown }).format === 'engram' ? 'json' : 'mem0';
}

/**
 * Imports through `POST /api/import?format=`: the server checks the whole
 * input, writes it in batches and answers the counts; names, observation
 * texts and relations the space has are skipped (importing twice adds
 * nothing). JSON or JSONL past the server's request body limit (413) is
 * written entity by entity through the REST API instead (`importGraph`).
 */
export async function importThroughServer(
  client: { api: Api; entities: Entities; relations: Relations },
  data: ImportData,
  options: ImportOptions,
): Promise<ImportSummary> {
  const format = options.format ?? formatOfData(data);
  const bytes =
    data instanceof Uint8Array ? data : data instanceof ArrayBuffer ? new Uint8Array(data) : null;
  if (format === 'markdown' && !bytes) {
    throw invalid('format markdown takes the bytes of a zip (Uint8Array)');
  }
  const body: BodyInit = bytes
    ? (bytes as unknown as BodyInit)
    : typeof data === 'string'
      ? data
      : JSON.stringify(data);
  const type =
    format === 'markdown'
      ? 'application/zip'
      : format === 'jsonl'
        ? 'application/x-ndjson'
        : 'application/json';
  const transfer = client.api as unknown as TransferApi;
  try {
    const summary = await unwrap(
      transfer.POST('/api/import', {
        params: { query: { format } },
        body,
        bodySerializer: (value) => value as BodyInit,
        headers: { 'content-type': type },
      }),
    );
    return summary as ImportSummary;
  } catch (error) {
    const tooLarge = error instanceof EngramError && error.status === 413;
    if (tooLarge && (format === 'json' || format === 'jsonl') && !bytes) {
      return importGraph(client, data as string | ExportDocument, { format });
    }
    throw error;
  }
}

/**
 * Writes a graph through the REST API, checked first: entities (skipping names
 * the space has), then relations between them (skipping those it has). Ids
 * and dates of an Engram export are not kept: the server gives new ones.
 */
export async function importGraph(
  client: { entities: Entities; relations: Relations },
  data: string | ExportDocument,
  options: { format?: 'json' | 'jsonl' },
): Promise<ImportSummary> {
  const plan = planOf(data, options.format);
  const summary: ImportSummary = { entities: 0, relations: 0, observations: 0, skipped: [] };
  const ids = new Map<string, string>();
  const byName = !plan.byId;
  /** A relation's end: an entity of the file, or (JSONL, by name) one the space had. */
  const resolve = async (ref: string) => {
    if (!ids.has(ref) && byName) {
      const id = await idOfName(client.entities, ref);
      if (id !== undefined) ids.set(ref, id);
    }
    return ids.get(ref);
  };
  for (const entity of plan.entities) {
    const [first, ...rest] = chunks(entity.observations, OBSERVATIONS_PER_CALL);
    try {
      const created = await client.entities.create({
        name: entity.name,
        type: entity.type,
        metadata: entity.metadata,
        observations: first ?? [],
      });
      ids.set(entity.ref, created.id);
      for (const more of rest) await client.entities.addObservations(created.id, more);
      if (entity.aliases?.length) {
        const { name, type, metadata, aliases } = entity;
        await client.entities.update(created.id, { name, type, metadata, aliases });
      }
      summary.entities += 1;
      summary.observations += entity.observations.length;
    } catch (error) {
      if (!(error instanceof EngramError) || error.code !== 'CONFLICT') throw error;
      const id = await idOfName(client.entities, entity.name);
      if (id !== undefined) ids.set(entity.ref, id);
    }
  }
  for (const relation of plan.relations) {
    const fromEntityId = await resolve(relation.from);
    const toEntityId = await resolve(relation.to);
    if (fromEntityId === undefined || toEntityId === undefined || fromEntityId === toEntityId) {
      continue;
    }
    try {
      await client.relations.create({ fromEntityId, toEntityId, type: relation.type });
      summary.relations += 1;
    } catch (error) {
      if (!(error instanceof EngramError) || error.code !== 'CONFLICT') throw error;
    }
  }
  return summary;
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size)
    out.push(items.slice(start, start + size));
  return out;
}
