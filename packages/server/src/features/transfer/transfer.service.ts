import type { z } from 'zod';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { AppError, invalidInput, reworded } from '../../lib/errors.js';
import type { Db } from '../../db/connection.js';
import type { EntityRow, GraphService, ObservationRow } from '../graph/index.js';
import type { ImportSkip } from './import-names.js';
import * as transferRepo from './transfer.repository.js';

/** What export and import run on: the graph's tables to read, and the graph to write through. */
export interface TransferDeps {
  db: Db;
  graph: GraphService;
}

/**
 * What every format's export and import share (the formats: `lossless.ts`,
 * `jsonl.ts`, `markdown.ts`, `mem0.ts`).
 *
 * The JSON formats stream both ways. An export reads the graph in keyset pages (short
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

export interface ImportSummary {
  entities: number;
  relations: number;
  /** Observations written: those of the entities created, and those added to entities the space had. */
  observations: number;
  /** What the import left out and why (the first SKIPPED_LISTED_MAX). */
  skipped: ImportSkip[];
}

/** An import's answer before it has written anything. */
export const emptySummary = (): ImportSummary => ({
  entities: 0,
  relations: 0,
  observations: 0,
  skipped: [],
});

export function invalid(
  where: string,
  error: z.ZodError,
  prefix: (string | number)[] = [],
): AppError {
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
export interface EntityPiece {
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

// ── import ──────────────────────────────────────────────────────────────────

/**
 * A file to import as text chunks, read from its start on each call: an
 * import reads it once to check it whole, and again to write it.
 */
export type ImportSource = () => AsyncIterable<string> | Iterable<string>;

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
