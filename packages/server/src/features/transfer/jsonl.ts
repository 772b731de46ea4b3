import { entityName, observationText, typeName } from '@engram/shared';
import { z } from 'zod';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { invalidInput } from '../../lib/errors.js';
import type { EntityRow } from '../graph/index.js';
import type * as transferRepo from './transfer.repository.js';
import {
  batches,
  emptySummary,
  entityPieces,
  importing,
  IMPORT_BATCH,
  invalid,
  relationPages,
  type ImportSource,
  type ImportSummary,
  type TransferDeps,
} from './transfer.service.js';

/**
 * The reference MCP memory server's JSONL: one `{"type":"entity"…}` or
 * `{"type":"relation"…}` per line; names, types, observation texts and
 * relations, nothing else. Its fields take the limits every other door does.
 */

const jsonlEntity = z.object({
  type: z.literal('entity'),
  name: entityName,
  entityType: typeName('entityType'),
  observations: z.array(observationText).default([]),
});
const jsonlRelation = z.object({
  type: z.literal('relation'),
  from: entityName,
  to: entityName,
  relationType: typeName('relationType'),
});
const jsonlLine = z.discriminatedUnion('type', [jsonlEntity, jsonlRelation]);

const json = JSON.stringify;

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
  return importing(emptySummary(), async (summary) => {
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
