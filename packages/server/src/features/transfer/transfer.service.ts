import { aliasList } from '@engram/shared';
import { z } from 'zod';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { AppError, invalidInput, reworded } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { JsonSplitError, splitJsonObject } from '../../lib/json-split.js';
import type { Db } from '../../db/connection.js';
import {
  graphWrites,
  type EntityRow,
  type GraphService,
  type ObservationRow,
} from '../graph/index.js';
import * as transferRepo from './transfer.repository.js';

/** What export and import run on: the graph's tables to read, and the graph to write through. */
export interface TransferDeps {
  db: Db;
  graph: GraphService;
}

/**
 * Moving memory in and out: the reference MCP server's JSONL (one
 * `{"type":"entity"…}` or `{"type":"relation"…}` per line) and Engram's own
 * lossless JSON, which keeps ids, metadata and dates.
 *
 * Both directions stream. An export reads the graph in keyset pages (short
 * statements, bounded in rows and bytes: `transfer.repository`) and hands
 * out each page's text as it comes, so its memory does not grow with the
 * graph, its time grows linearly, and other requests run between its pages.
 * An import reads its file as a stream of entities and relations and writes
 * them in batches, after a first reading has checked the whole file.
 */

/** Entities or relations written per import transaction (JSONL: per call of the memory service). */
export const IMPORT_BATCH = 1_000;
/** Observations per import transaction (an entity with more goes alone). */
export const IMPORT_BATCH_OBSERVATIONS = 10_000;

/** Rows one export statement reads at most: entities, observations, relations. */
const EXPORT_ENTITIES = 1_000;
const EXPORT_OBSERVATIONS = 1_000;
const EXPORT_RELATIONS = 1_000;
/**
 * Bytes of names, metadata and observation text one export statement reads
 * past its first row: with the rows above, what bounds an export's memory.
 */
const EXPORT_PAGE_BYTES = 2 * 1024 * 1024;

const jsonlEntity = z.object({
  type: z.literal('entity'),
  name: z.string(),
  entityType: z.string(),
  observations: z.array(z.string()).default([]),
});
const jsonlRelation = z.object({
  type: z.literal('relation'),
  from: z.string(),
  to: z.string(),
  relationType: z.string(),
});
const jsonlLine = z.discriminatedUnion('type', [jsonlEntity, jsonlRelation]);

const losslessEntity = z.object({
  id: z.string().refine(isUuid, 'must be a uuid'),
  name: z.string().trim().min(1),
  type: z.string().trim().min(1),
  metadata: z.record(z.string(), z.unknown()).default({}),
  aliases: aliasList.optional(),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
  observations: z.array(
    z.object({
      id: z.string().refine(isUuid, 'must be a uuid'),
      content: z.string(),
      metadata: z.record(z.string(), z.unknown()).optional(),
      createdAt: z.iso.datetime({ offset: true }),
    }),
  ),
});
const losslessRelation = z.object({
  id: z.string().refine(isUuid, 'must be a uuid'),
  fromEntityId: z.string().refine(isUuid, 'must be a uuid'),
  toEntityId: z.string().refine(isUuid, 'must be a uuid'),
  type: z.string().trim().min(1),
  createdAt: z.iso.datetime({ offset: true }),
});
const losslessDocument = z.object({
  format: z.literal('engram'),
  version: z.literal(1),
  entities: z.array(losslessEntity),
  relations: z.array(losslessRelation),
});
export type LosslessDocument = z.infer<typeof losslessDocument>;
type LosslessEntity = z.infer<typeof losslessEntity>;
type LosslessRelation = z.infer<typeof losslessRelation>;

export interface ImportSummary {
  entities: number;
  relations: number;
  /** Observations written: those of the entities created, and those added to entities the space had. */
  observations: number;
}

function invalid(where: string, error: z.ZodError, prefix: (string | number)[] = []): AppError {
  const issue = error.issues[0];
  const path = [...prefix, ...(issue?.path ?? [])].join('.');
  return invalidInput(`${where}${path ? ` (${path})` : ''}: ${issue?.message}`);
}

// ── export ──────────────────────────────────────────────────────────────────

/**
 * A piece of one entity as an export writes it: its head on its first piece,
 * some of its observations, its end on its last. An entity with more
 * observations than one statement reads comes in several pieces.
 */
interface EntityPiece {
  entity: EntityRow;
  observations: Omit<ObservationRow, 'entity_id'>[];
  start: boolean;
  end: boolean;
}

/**
 * The account's entities in creation order, each with all its observations
 * in their order, as one list of pieces per statement read. Each page of
 * entities is followed by its observations: runs of whole entities up to
 * EXPORT_OBSERVATIONS rows (by the counts kept on the entities), a larger
 * entity alone and in parts, every read cut at EXPORT_PAGE_BYTES and
 * resumed after its last row. Not a snapshot: a write made meanwhile shows if
 * it lands in a page not yet read (an entity's observations are those it
 * had when its row was read, at most).
 */
export async function* entityPieces(
  deps: TransferDeps,
  auth: SpaceAuth,
): AsyncGenerator<EntityPiece[]> {
  let after = '0';
  for (;;) {
    const page = await transferRepo.entitiesAfter(deps.db, auth.space.id, after, {
      limit: EXPORT_ENTITIES,
      maxBytes: EXPORT_PAGE_BYTES,
    });
    if (page.length === 0) return;
    after = page.at(-1)!.ordinal;
    // The first entity of the page not yet finished, where its observations
    // go on, and how many of them were read.
    let next = 0;
    let from = transferRepo.FIRST_OBSERVATION;
    let read = 0;
    while (next < page.length) {
      const run: { entity: EntityRow; take: number; left: number }[] = [];
      let rows = 0;
      for (let i = next; i < page.length && rows < EXPORT_OBSERVATIONS; i++) {
        const entity = page[i]!;
        const left = Math.max(0, entity.observations_count - (i === next ? read : 0));
        if (run.length > 0 && rows + left > EXPORT_OBSERVATIONS) break;
        const take = Math.min(left, EXPORT_OBSERVATIONS);
        run.push({ entity, take, left });
        rows += take;
      }
      const found =
        rows === 0
          ? { rows: [], cut: false }
          : await transferRepo.observationsOf(
              deps.db,
              auth.space.id,
              run.map(({ entity, take }) => ({ id: entity.id, take })),
              from,
              EXPORT_PAGE_BYTES,
            );
      const byEntity = new Map<number, transferRepo.ExportObservationRow[]>();
      for (const row of found.rows) {
        let list = byEntity.get(row.ord);
        if (!list) byEntity.set(row.ord, (list = []));
        list.push(row);
      }
      // A cut answer reached only the entity of its last row, which goes on.
      const reached = found.cut ? found.rows.at(-1)!.ord : run.length;
      const pieces: EntityPiece[] = [];
      let goesOn = false;
      for (let ord = 1; ord <= reached; ord++) {
        const { entity, take, left } = run[ord - 1]!;
        const observations = byEntity.get(ord) ?? [];
        const start = ord > 1 || read === 0;
        goesOn = (found.cut && ord === reached) || (observations.length === take && take < left);
        pieces.push({ entity, observations, start, end: !goesOn });
        if (goesOn) {
          from = observations.at(-1)!.key;
          read = (ord === 1 ? read : 0) + observations.length;
          next += ord - 1;
          break;
        }
      }
      if (!goesOn) {
        next += run.length;
        from = transferRepo.FIRST_OBSERVATION;
        read = 0;
      }
      yield pieces;
    }
  }
}

/**
 * The account's relations in creation order, a page per statement; with
 * `names`, each with its ends' names (a relation whose end is gone is left out).
 */
export async function* relationPages(
  deps: TransferDeps,
  auth: SpaceAuth,
  names: boolean,
): AsyncGenerator<transferRepo.ExportRelationRow[]> {
  let after = '0';
  for (;;) {
    const page = await transferRepo.relationsAfter(deps.db, auth.space.id, after, {
      limit: EXPORT_RELATIONS,
      names,
    });
    if (page.length === 0) return;
    after = page.at(-1)!.ordinal;
    yield page;
    if (page.length < EXPORT_RELATIONS) return;
  }
}

// The export's text is written by hand rather than by JSON.stringify of an
// object per row (2.5 times faster for an export's millions of rows): the
// same text, key for key, as before. Ids (uuids) and dates (ISO) need no
// escaping; every other value goes through JSON.stringify.
const json = JSON.stringify;
type ExportObservation = EntityPiece['observations'][number];

const lossless = {
  head: (entity: EntityRow) =>
    `{"id":"${entity.id}","name":${json(entity.name)},"type":${json(entity.type)},"metadata":${json(entity.metadata)}${entity.aliases.length > 0 ? `,"aliases":${json(entity.aliases)}` : ''},"createdAt":"${entity.created_at.toISOString()}","updatedAt":"${entity.updated_at.toISOString()}","observations":[`,
  observation: (observation: ExportObservation) =>
    `{"id":"${observation.id}","content":${json(observation.content)}${observation.metadata ? `,"metadata":${json(observation.metadata)}` : ''},"createdAt":"${observation.created_at.toISOString()}"}`,
  relation: (relation: transferRepo.ExportRelationRow) =>
    `{"id":"${relation.id}","fromEntityId":"${relation.from_id}","toEntityId":"${relation.to_id}","type":${json(relation.type)},"createdAt":"${relation.created_at.toISOString()}"}`,
};

const jsonl = {
  head: (entity: EntityRow) =>
    `{"type":"entity","name":${json(entity.name)},"entityType":${json(entity.type)},"observations":[`,
  relation: (relation: transferRepo.ExportRelationRow & { from_name: string; to_name: string }) =>
    `{"type":"relation","from":${json(relation.from_name)},"to":${json(relation.to_name)},"relationType":${json(relation.type)}}\n`,
};

/**
 * Writes the account's graph as the reference server's JSONL: entities
 * (creation order) with their observations' texts, then relations
 * (creation order). One string per statement read.
 */
export async function* exportJsonl(deps: TransferDeps, auth: SpaceAuth): AsyncGenerator<string> {
  let firstObservation = true;
  for await (const pieces of entityPieces(deps, auth)) {
    let text = '';
    for (const { entity, observations, start, end } of pieces) {
      if (start) {
        text += jsonl.head(entity);
        firstObservation = true;
      }
      for (const observation of observations) {
        text += (firstObservation ? '' : ',') + json(observation.content);
        firstObservation = false;
      }
      if (end) text += ']}\n';
    }
    yield text;
  }
  for await (const page of relationPages(deps, auth, true)) {
    let text = '';
    for (const relation of page) {
      const { from_name: from, to_name: to } = relation;
      if (from !== null && to !== null)
        text += jsonl.relation({ ...relation, from_name: from, to_name: to });
    }
    yield text;
  }
}

/**
 * Writes the account's graph losslessly: ids, metadata, observation metadata
 * and dates; entities and relations in creation order, observations in
 * their order. One string per statement read.
 */
export async function* exportLossless(deps: TransferDeps, auth: SpaceAuth): AsyncGenerator<string> {
  yield `{"format":"engram","version":1,"exportedAt":"${new Date().toISOString()}","entities":[`;
  let firstEntity = true;
  let firstObservation = true;
  for await (const pieces of entityPieces(deps, auth)) {
    let text = '';
    for (const { entity, observations, start, end } of pieces) {
      if (start) {
        text += (firstEntity ? '' : ',') + lossless.head(entity);
        firstEntity = false;
        firstObservation = true;
      }
      for (const observation of observations) {
        text += (firstObservation ? '' : ',') + lossless.observation(observation);
        firstObservation = false;
      }
      if (end) text += ']}';
    }
    yield text;
  }
  yield '],"relations":[';
  let firstRelation = true;
  for await (const page of relationPages(deps, auth, false)) {
    let text = '';
    for (const relation of page) {
      text += (firstRelation ? '' : ',') + lossless.relation(relation);
      firstRelation = false;
    }
    yield text;
  }
  yield ']}\n';
}

// ── import ──────────────────────────────────────────────────────────────────

/**
 * A file to import as text chunks, read from its start on each call: an
 * import reads it once to check it whole, and again to write it.
 */
export type ImportSource = () => AsyncIterable<string> | Iterable<string>;

/** Its lines, without their line ends (a last line without one included). */
async function* linesOf(chunks: AsyncIterable<string> | Iterable<string>): AsyncGenerator<string> {
  // The start of a line the chunks so far have not ended (a long line grows it, never re-split).
  let carry = '';
  for await (const chunk of chunks) {
    const parts = chunk.split('\n');
    if (parts.length === 1) {
      carry += chunk;
      continue;
    }
    yield carry + parts[0]!;
    yield* parts.slice(1, -1);
    carry = parts.at(-1)!;
  }
  if (carry !== '') yield carry;
}

/** The reference server's JSONL lines: entity or relation, checked, with their line numbers. */
async function* jsonlLines(chunks: AsyncIterable<string> | Iterable<string>) {
  let number = 0;
  for await (const raw of linesOf(chunks)) {
    number += 1;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalidInput(`Line ${number}: not valid JSON`);
    }
    const parsed = jsonlLine.safeParse(value);
    if (!parsed.success) throw invalid(`Line ${number}`, parsed.error);
    yield parsed.data;
  }
}

/** Items in lists of at most `size` (the last may be shorter), or of `weight` at most. */
export async function* batches<T>(
  items: AsyncIterable<T>,
  size: number,
  weigh: (item: T) => number = () => 0,
  weight = Infinity,
): AsyncGenerator<T[]> {
  let batch: T[] = [];
  let held = 0;
  for await (const item of items) {
    const own = weigh(item);
    if (batch.length > 0 && (batch.length >= size || held + own > weight)) {
      yield batch;
      batch = [];
      held = 0;
    }
    batch.push(item);
    held += own;
  }
  if (batch.length > 0) yield batch;
}

/** Keeps what was imported when a later batch fails, and says so with the error. */
export async function importing(
  summary: ImportSummary,
  run: (summary: ImportSummary) => Promise<void>,
): Promise<ImportSummary> {
  try {
    await run(summary);
    return summary;
  } catch (error) {
    const written = summary.entities + summary.relations + summary.observations;
    if (error instanceof AppError && written > 0) {
      throw reworded(
        error,
        `${error.message} (imported before that: ${summary.entities} entities, ${summary.observations} observations and ${summary.relations} relations; importing the file again skips them)`,
      );
    }
    throw error;
  }
}

/**
 * Imports the reference server's JSONL; existing names and triples are
 * skipped. The whole file is checked first, then its entities are written,
 * then its relations (wherever they are in the file), a batch at a time.
 */
export async function importJsonlFrom(
  deps: TransferDeps,
  auth: SpaceAuth,
  source: ImportSource,
): Promise<ImportSummary> {
  for await (const _line of jsonlLines(source())) {
    // Checked as it is read: a bad line stops the import before anything is written.
  }
  return importing({ entities: 0, relations: 0, observations: 0 }, async (summary) => {
    const entities = async function* () {
      for await (const line of jsonlLines(source())) if (line.type === 'entity') yield line;
    };
    for await (const batch of batches(entities(), IMPORT_BATCH)) {
      const given = batch.map((line) => ({
        name: line.name,
        type: line.entityType,
        observations: line.observations,
      }));
      const created = await deps.graph.createEntities(auth, given, { existing: 'skip' });
      summary.entities += created.length;
      for (const entity of created) summary.observations += entity.observations.length;
    }
    const relations = async function* () {
      for await (const line of jsonlLines(source())) if (line.type === 'relation') yield line;
    };
    for await (const batch of batches(relations(), IMPORT_BATCH)) {
      summary.relations += (await deps.graph.createRelationsByName(auth, batch)).length;
    }
  });
}

/** Imports the reference server's JSONL held as one string. */
export function importJsonl(
  deps: TransferDeps,
  auth: SpaceAuth,
  text: string,
): Promise<ImportSummary> {
  return importJsonlFrom(deps, auth, () => [text]);
}

/** The lists of a lossless export, read an element at a time. */
const LISTS: ReadonlySet<string> = new Set(['entities', 'relations']);

/** The split pieces of a lossless export, or the error that shows it is not one. */
async function* losslessPieces(chunks: AsyncIterable<string> | Iterable<string>) {
  try {
    yield* splitJsonObject(chunks, LISTS);
  } catch (error) {
    if (error instanceof JsonSplitError) {
      throw invalidInput(`Engram export: ${error.message}`);
    }
    throw error;
  }
}

/** One element of a lossless export's `entities` or `relations`, checked. */
function losslessElement(piece: { array: string; index: number; text: string }) {
  let value: unknown;
  try {
    value = JSON.parse(piece.text);
  } catch {
    throw invalidInput(`Engram export (${piece.array}.${piece.index}): not valid JSON`);
  }
  const schema = piece.array === 'entities' ? losslessEntity : losslessRelation;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid('Engram export', parsed.error, [piece.array, piece.index]);
  return parsed.data;
}

/** Checks a whole lossless export: every element, and the document around them. */
async function checkLossless(chunks: AsyncIterable<string> | Iterable<string>): Promise<void> {
  for await (const piece of losslessPieces(chunks)) {
    if (piece.kind === 'element') losslessElement(piece);
    if (piece.kind !== 'rest') continue;
    let value: unknown;
    try {
      value = JSON.parse(piece.text);
    } catch {
      throw invalidInput('Engram export: not valid JSON');
    }
    const parsed = losslessDocument.safeParse(value);
    if (!parsed.success) throw invalid('Engram export', parsed.error);
  }
}

/** The checked elements of one of a lossless export's lists. */
async function* losslessList<T>(chunks: AsyncIterable<string> | Iterable<string>, array: string) {
  for await (const piece of losslessPieces(chunks)) {
    if (piece.kind === 'element' && piece.array === array) yield losslessElement(piece) as T;
  }
}

/** Writes checked lossless entities, then relations, a batch per transaction. */
async function writeLossless(
  deps: TransferDeps,
  auth: SpaceAuth,
  entities: AsyncIterable<LosslessEntity>,
  relations: () => AsyncIterable<LosslessRelation>,
): Promise<ImportSummary> {
  return importing({ entities: 0, relations: 0, observations: 0 }, async (summary) => {
    const weigh = (entity: LosslessEntity) => entity.observations.length;
    for await (const batch of batches(entities, IMPORT_BATCH, weigh, IMPORT_BATCH_OBSERVATIONS)) {
      const created = await deps.graph.write(auth, (scope) =>
        graphWrites.createEntities(scope, batch),
      );
      summary.entities += created.length;
      for (const entity of created) summary.observations += entity.observations.length;
    }
    for await (const batch of batches(relations(), IMPORT_BATCH)) {
      const linked = await deps.graph.write(auth, (scope) =>
        graphWrites.createRelationsWhereEndsExist(
          scope,
          batch.map((relation) => ({
            id: relation.id,
            fromId: relation.fromEntityId,
            toId: relation.toEntityId,
            type: relation.type,
            createdAt: relation.createdAt,
          })),
        ),
      );
      summary.relations += linked.length;
    }
  });
}

/**
 * Imports a lossless export read as a stream (a file of any size). Entities
 * whose id or name the account already has are skipped with their
 * observations; relations need both ends present. The whole file is checked
 * before anything is written; then entities and relations are written a
 * batch per transaction (a failure keeps the batches before it).
 */
export async function importLosslessFrom(
  deps: TransferDeps,
  auth: SpaceAuth,
  source: ImportSource,
): Promise<ImportSummary> {
  await checkLossless(source());
  return writeLossless(deps, auth, losslessList<LosslessEntity>(source(), 'entities'), () =>
    losslessList<LosslessRelation>(source(), 'relations'),
  );
}

/** Imports a lossless export already parsed (a test's or a caller's document). */
export async function importLossless(
  deps: TransferDeps,
  auth: SpaceAuth,
  value: unknown,
): Promise<ImportSummary> {
  const parsed = losslessDocument.safeParse(value);
  if (!parsed.success) throw invalid('Engram export', parsed.error);
  const document = parsed.data;
  const each = async function* <T>(items: T[]) {
    yield* items;
  };
  return writeLossless(deps, auth, each(document.entities), () => each(document.relations));
}

/**
 * Which format a file is in: an Engram export is a JSON object with a
 * top-level `format` key; anything else is read as JSONL. Only as much of
 * the file is read as it takes to tell: up to that key (the first one in
 * Engram's own exports), or a JSONL file's first line.
 */
export async function formatOf(source: ImportSource): Promise<'lossless' | 'jsonl'> {
  try {
    for await (const piece of splitJsonObject(source(), LISTS)) {
      if (piece.kind === 'key' && piece.key === 'format') return 'lossless';
    }
  } catch (error) {
    // Not one JSON object: JSONL.
    if (error instanceof JsonSplitError) return 'jsonl';
    throw error;
  }
  return 'jsonl';
}

/** Imports a file of either format (see `formatOf`). */
export async function importFrom(
  deps: TransferDeps,
  auth: SpaceAuth,
  source: ImportSource,
): Promise<ImportSummary> {
  return (await formatOf(source)) === 'lossless'
    ? importLosslessFrom(deps, auth, source)
    : importJsonlFrom(deps, auth, source);
}
