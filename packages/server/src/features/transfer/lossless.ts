import {
  aliasList,
  entityName,
  metadataObject,
  observationText,
  storedTime,
  typeName,
  validFromNotAfterTo,
  validity,
  validOrder,
} from '@engram/shared';
import { z } from 'zod';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { invalidInput } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import { JsonSplitError, splitJsonObject } from '../../lib/json-split.js';
import { graphWrites, type EntityRow } from '../graph/index.js';
import { aliasesLeftOut, ImportNames, type ImportSkip } from './import-names.js';
import { importJsonlFrom } from './jsonl.js';
import type * as transferRepo from './transfer.repository.js';
import {
  batches,
  emptySummary,
  entityPieces,
  importing,
  IMPORT_BATCH,
  IMPORT_BATCH_OBSERVATIONS,
  invalid,
  relationPages,
  type EntityPiece,
  type ImportSource,
  type ImportSummary,
  type TransferDeps,
} from './transfer.service.js';

/**
 * Engram's own lossless JSON: ids, names, types, metadata, aliases,
 * observations with their metadata and dates, relations with theirs, and
 * the server's times, so an export imported into an empty space and
 * exported again gives the same document (`security/export-roundtrip.test.ts`).
 */

// The lossless format's fields take the limits every other door applies
// (the shared schemas): an import is a write like any other.
const losslessObservation = z
  .object({
    id: z.string().refine(isUuid, 'must be a uuid'),
    content: observationText,
    metadata: metadataObject.optional(),
    ...validity,
    createdAt: storedTime,
  })
  .refine(validFromNotAfterTo, validOrder);
const losslessEntity = z.object({
  id: z.string().refine(isUuid, 'must be a uuid'),
  name: entityName,
  type: typeName('Type'),
  metadata: metadataObject.default({}),
  aliases: aliasList.optional(),
  createdAt: storedTime,
  updatedAt: storedTime,
  observations: z.array(losslessObservation),
});
const losslessRelation = z
  .object({
    id: z.string().refine(isUuid, 'must be a uuid'),
    fromEntityId: z.string().refine(isUuid, 'must be a uuid'),
    toEntityId: z.string().refine(isUuid, 'must be a uuid'),
    type: typeName('Relation type'),
    ...validity,
    createdAt: storedTime,
  })
  .refine(validFromNotAfterTo, validOrder);
const losslessDocument = z.object({
  format: z.literal('engram'),
  version: z.literal(1),
  entities: z.array(losslessEntity),
  relations: z.array(losslessRelation),
});
export type LosslessDocument = z.infer<typeof losslessDocument>;
type LosslessEntity = z.infer<typeof losslessEntity>;
type LosslessRelation = z.infer<typeof losslessRelation>;

// The export's text is written by hand rather than by JSON.stringify of an
// object per row (2.5 times faster for an export's millions of rows): the
// same text, key for key, as before. Ids (uuids) and dates (ISO) need no
// escaping; every other value goes through JSON.stringify.
const json = JSON.stringify;
type ExportObservation = EntityPiece['observations'][number];

/** A fact's dates as the lossless format writes them: only those it has. */
const validDates = (row: { valid_from?: Date | null; valid_to?: Date | null }) =>
  (row.valid_from ? `,"validFrom":"${row.valid_from.toISOString()}"` : '') +
  (row.valid_to ? `,"validTo":"${row.valid_to.toISOString()}"` : '');

const lossless = {
  head: (entity: EntityRow) =>
    `{"id":"${entity.id}","name":${json(entity.name)},"type":${json(entity.type)},"metadata":${json(entity.metadata)}${entity.aliases.length > 0 ? `,"aliases":${json(entity.aliases)}` : ''},"createdAt":"${entity.created_at.toISOString()}","updatedAt":"${entity.updated_at.toISOString()}","observations":[`,
  observation: (observation: ExportObservation) =>
    `{"id":"${observation.id}","content":${json(observation.content)}${observation.metadata ? `,"metadata":${json(observation.metadata)}` : ''}${validDates(observation)},"createdAt":"${observation.created_at.toISOString()}"}`,
  relation: (relation: transferRepo.ExportRelationRow) =>
    `{"id":"${relation.id}","fromEntityId":"${relation.from_id}","toEntityId":"${relation.to_id}","type":${json(relation.type)}${validDates(relation)},"createdAt":"${relation.created_at.toISOString()}"}`,
};

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

/**
 * Checks a whole lossless export, every element and the document around
 * them, and reads its entities' names and aliases into `names`.
 */
async function checkLossless(
  chunks: AsyncIterable<string> | Iterable<string>,
  names: ImportNames,
): Promise<void> {
  for await (const piece of losslessPieces(chunks)) {
    if (piece.kind === 'element') {
      const element = losslessElement(piece);
      if (piece.array === 'entities') names.note(element as LosslessEntity);
    }
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

/**
 * Writes checked lossless entities, then relations, a batch per transaction.
 * `names` has read every entity's names: an alias the import gives twice,
 * or as a name too, is kept once (import-names.ts).
 */
async function writeLossless(
  deps: TransferDeps,
  auth: SpaceAuth,
  names: ImportNames,
  entities: AsyncIterable<LosslessEntity>,
  relations: () => AsyncIterable<LosslessRelation>,
): Promise<ImportSummary> {
  return importing(emptySummary(), async (summary) => {
    const weigh = (entity: LosslessEntity) => entity.observations.length;
    for await (const given of batches(entities, IMPORT_BATCH, weigh, IMPORT_BATCH_OBSERVATIONS)) {
      const keptBack: ImportSkip[] = [];
      const batch = given.map((entity) => ({
        ...entity,
        aliases: names.aliasesOf(entity, keptBack),
      }));
      const { result: created } = await deps.graph.write(auth, (scope) =>
        graphWrites.createEntities(scope, batch),
      );
      aliasesLeftOut(
        batch,
        created.map(({ row }) => row),
        keptBack,
        summary.skipped,
      );
      summary.entities += created.length;
      for (const entity of created) summary.observations += entity.observations.length;
    }
    for await (const batch of batches(relations(), IMPORT_BATCH)) {
      const { result: linked } = await deps.graph.write(auth, (scope) =>
        graphWrites.createRelationsWhereEndsExist(
          scope,
          batch.map((relation) => ({
            id: relation.id,
            fromId: relation.fromEntityId,
            toId: relation.toEntityId,
            type: relation.type,
            createdAt: relation.createdAt,
            validFrom: relation.validFrom,
            validTo: relation.validTo,
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
  const names = new ImportNames();
  await checkLossless(source(), names);
  return writeLossless(deps, auth, names, losslessList<LosslessEntity>(source(), 'entities'), () =>
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
  const names = new ImportNames();
  for (const entity of document.entities) names.note(entity);
  const each = async function* <T>(items: T[]) {
    yield* items;
  };
  return writeLossless(deps, auth, names, each(document.entities), () => each(document.relations));
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
