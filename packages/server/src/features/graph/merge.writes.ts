import { isUuid } from '../../lib/ids.js';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { requireByName } from './names.js';
import * as entityRepo from './entities.repository.js';
import * as mergeRepo from './merge.repository.js';
import * as observationRepo from './observations.repository.js';
import {
  assertAliasCount,
  assertNamesFree,
  createEntities,
  createRelations,
  isoOrNull,
  nameTaken,
  observationKey,
  updateRelation,
} from './graph.writes.js';
import type { WriteScope } from './write.js';
import * as relationRepo from './relations.repository.js';

/**
 * The write operations that move rows between entities, keeping their ids: a
 * merge (consolidation, docs/consolidation.md) and a revert putting rows back
 * where they were (history). Run inside `write()`, like those of
 * `graph.writes.ts`.
 */

// ── a merge ─────────────────────────────────────────────────────────────────

export interface MergeCounts {
  /** Sources removed. */
  entities: number;
  /** Observations moved to the target. */
  observations: number;
  /** Relations re-pointed to the target. */
  relations: number;
  /** Observations kept once and relations that became loops or repeats, dropped. */
  duplicatesDropped: number;
}

/** A merge's entities by name or alias (MCP): 404 naming each missing one, 400 when the target is a source. */
export async function idsOfNames(
  scope: WriteScope,
  target: string,
  sources: string[],
): Promise<{ targetId: string; sourceIds: string[] }> {
  const byName = await requireByName(scope.trx, scope.spaceId, [target, ...sources]);
  const targetId = byName.get(target)!.id;
  const sourceIds = [...new Set(sources.map((name) => byName.get(name)!.id))];
  if (sourceIds.includes(targetId)) {
    throw badRequest('sources', 'The target cannot be one of its sources');
  }
  return { targetId, sourceIds };
}

/**
 * Makes the sources one with the target, as one call with one event
 * (`entity_merged`): their observations move to it (texts equal after
 * `observationKey` are kept once, the earliest), their relations are
 * re-pointed (a loop or a repeat is dropped), their metadata fills the keys
 * the target lacks, their names become its aliases, and they go. Rows keep
 * their ids, so a revert puts each back. `name` and `type` rename and retype
 * the target (its old name becomes an alias).
 */
export async function mergeEntities(
  scope: WriteScope,
  input: {
    targetId: string;
    sourceIds: string[];
    name?: string | undefined;
    type?: string | undefined;
  },
): Promise<{ row: entityRepo.EntityRow; merged: MergeCounts }> {
  const { trx, spaceId } = scope;
  const sourceIds = [...new Set(input.sourceIds)];
  if (sourceIds.includes(input.targetId)) {
    throw badRequest('sourceIds', 'The target cannot be one of its sources');
  }
  const ids = [input.targetId, ...sourceIds];
  if (!ids.every(isUuid)) throw notFound('Entity');
  const found = new Map(
    (await entityRepo.findEntitiesByIds(trx, spaceId, ids)).map((row) => [row.id, row]),
  );
  const target = found.get(input.targetId);
  const sources = sourceIds.map((id) => found.get(id));
  if (!target || !sources.every((source) => source !== undefined)) throw notFound('Entity');

  const name = input.name ?? target.name;
  const type = input.type ?? target.type;
  const aliases = [
    ...new Set([
      ...target.aliases,
      target.name,
      ...sources.flatMap((source) => [source.name, ...source.aliases]),
    ]),
  ].filter((alias) => alias !== name);
  assertAliasCount(aliases.length);
  if (name !== target.name) await assertNamesFree(scope, [name], ids, 'name');

  // Observations: the target's first, then each source's, in order; equal texts kept once, the earliest.
  const rank = new Map(ids.map((id, index) => [id, index]));
  const observations = (await observationRepo.listObservations(trx, spaceId, ids)).sort(
    (a, b) => rank.get(a.entity_id)! - rank.get(b.entity_id)! || a.position - b.position,
  );
  const earliest = new Map<string, observationRepo.ObservationRow>();
  for (const observation of observations) {
    const key = observationKey(observation.content);
    const kept = earliest.get(key);
    if (!kept || observation.created_at < kept.created_at) earliest.set(key, observation);
  }
  const kept = new Set([...earliest.values()].map((observation) => observation.id));
  const dropped = observations.filter((observation) => !kept.has(observation.id));
  const moving = observations.filter(
    (observation) => kept.has(observation.id) && observation.entity_id !== target.id,
  );
  const next =
    Math.max(
      -1,
      ...observations.filter((row) => row.entity_id === target.id).map((row) => row.position),
    ) + 1;
  await observationRepo.deleteObservations(
    trx,
    spaceId,
    dropped.map((observation) => ({ entityId: observation.entity_id, id: observation.id })),
  );
  await mergeRepo.moveObservations(
    trx,
    spaceId,
    moving.map((observation, index) => ({
      id: observation.id,
      entityId: target.id,
      position: next + index,
    })),
  );

  // Relations: re-pointed to the target; ones that already join the same ends win over moved ones.
  const isSource = new Set(sourceIds);
  const end = (id: string) => (isSource.has(id) ? target.id : id);
  const moves = (relation: relationRepo.RelationRow) =>
    isSource.has(relation.from_id) || isSource.has(relation.to_id);
  const relations = (await mergeRepo.relationsTouching(trx, spaceId, ids)).sort(
    (a, b) =>
      Number(moves(a)) - Number(moves(b)) || a.created_at.getTime() - b.created_at.getTime(),
  );
  const joined = new Set<string>();
  const droppedRelations: string[] = [];
  const repointed: { id: string; fromId: string; toId: string }[] = [];
  for (const relation of relations) {
    const [fromId, toId] = [end(relation.from_id), end(relation.to_id)];
    const triple = JSON.stringify([fromId, toId, relation.type]);
    if (fromId === toId || joined.has(triple)) {
      droppedRelations.push(relation.id);
      continue;
    }
    joined.add(triple);
    if (moves(relation)) repointed.push({ id: relation.id, fromId, toId });
  }
  await relationRepo.deleteRelations(trx, spaceId, droppedRelations);
  await mergeRepo.setRelationEnds(trx, spaceId, repointed);

  await mergeRepo.removeEmptiedEntities(trx, spaceId, sourceIds);
  const metadata = { ...target.metadata };
  for (const source of sources) {
    for (const [key, value] of Object.entries(source.metadata)) {
      if (!(key in metadata)) metadata[key] = value;
    }
  }
  await entityRepo.updateEntity(trx, spaceId, target.id, { name, type, metadata, aliases });
  if (type !== target.type) {
    await entityRepo.adjustTypeCount(trx, spaceId, target.type, -1);
    await entityRepo.adjustTypeCount(trx, spaceId, type, 1);
  }
  const row = (await entityRepo.findEntity(trx, spaceId, target.id))!;
  scope.grew([{ id: row.id, name: row.name, observations_count: row.observations_count }]);
  scope.emit('entity_merged', {
    entityId: row.id,
    name: row.name,
    mergedIds: sourceIds,
    mergedNames: sources.map((source) => source.name),
  });
  return {
    row,
    merged: {
      entities: sources.length,
      observations: moving.length,
      relations: repointed.length,
      duplicatesDropped: dropped.length + droppedRelations.length,
    },
  };
}

// ── putting rows back (a revert: history.service) ──────────────────────────

type Image = Record<string, unknown>;

/** Removes observations by id (what a reverted call added); each entity that lost some is updated. */
export async function removeObservations(
  scope: WriteScope,
  removals: { entityId: string; id: string }[],
): Promise<void> {
  const gone = await observationRepo.deleteObservations(scope.trx, scope.spaceId, removals);
  await emitUpdated(
    scope,
    gone.map((row) => row.entity_id),
  );
}

/** An `entity_updated` event for each of these entities (their observations changed). */
async function emitUpdated(scope: WriteScope, ids: string[]): Promise<void> {
  const entities = await entityRepo.findEntitiesByIds(scope.trx, scope.spaceId, [...new Set(ids)]);
  for (const entity of entities) {
    scope.emit('entity_updated', {
      entityId: entity.id,
      id: entity.id,
      name: entity.name,
      type: entity.type,
    });
  }
}

/** Creates deleted entities again with their ids and dates; 409 when another entity has the name now. */
export async function restoreEntities(
  scope: WriteScope,
  entities: { id: string; image: Image }[],
): Promise<void> {
  if (entities.length === 0) return;
  const created = await createEntities(
    scope,
    entities.map(({ id, image }) => ({
      id,
      name: image.name as string,
      type: image.type as string,
      metadata: (image.metadata as Record<string, unknown>) ?? {},
      // Images kept before migration 032 have no aliases.
      aliases: (image.aliases as string[] | undefined) ?? [],
      observations: [],
      createdAt: isoOrNull(image.created_at) ?? undefined,
      updatedAt: isoOrNull(image.updated_at) ?? undefined,
    })),
  );
  const back = new Set(created.map((entity) => entity.row.id));
  const clash = entities.find((entity) => !back.has(entity.id));
  if (clash) throw nameTaken(clash.image.name as string);
}

/** Puts observations back as they were: deleted ones inserted with their ids, changed ones set back. */
export async function restoreObservations(
  scope: WriteScope,
  observations: { id: string; image: Image; deleted: boolean }[],
): Promise<void> {
  const restore = ({ id, image }: { id: string; image: Image }) => ({
    id,
    entityId: image.entity_id as string,
    content: image.content as string,
    metadata: (image.metadata as Record<string, unknown> | null) ?? null,
    position: image.position as number,
    createdAt: isoOrNull(image.created_at)!,
    validFrom: isoOrNull(image.valid_from),
    validTo: isoOrNull(image.valid_to),
  });
  const { counts } = await observationRepo.restoreObservations(
    scope.trx,
    scope.spaceId,
    observations.filter((item) => item.deleted).map(restore),
    scope.stage(),
  );
  scope.grew(counts);
  const changed = observations.filter((item) => !item.deleted).map(restore);
  // Back to the entity it was on (a merge moved it), then as it was.
  await mergeRepo.moveObservations(
    scope.trx,
    scope.spaceId,
    changed.map((item) => ({ id: item.id, entityId: item.entityId, position: item.position })),
  );
  for (const item of changed) await observationRepo.setObservation(scope.trx, scope.spaceId, item);
  await emitUpdated(
    scope,
    changed.map((item) => item.entityId),
  );
}

/** Puts relations back as they were: deleted ones created with their ids, changed ones set back. */
export async function restoreRelations(
  scope: WriteScope,
  relations: { id: string; image: Image; deleted: boolean }[],
): Promise<void> {
  const deleted = relations.filter((item) => item.deleted);
  if (deleted.length > 0) {
    const rows = await createRelations(
      scope,
      deleted.map(({ id, image }) => ({
        id,
        fromId: image.from_id as string,
        toId: image.to_id as string,
        type: image.type as string,
        createdAt: isoOrNull(image.created_at) ?? undefined,
        validFrom: isoOrNull(image.valid_from),
        validTo: isoOrNull(image.valid_to),
      })),
    );
    if (rows.length < deleted.length) {
      throw conflict('An identical relation already exists', 'type');
    }
  }
  const changed = relations.filter((item) => !item.deleted);
  // Back between the entities it joined (a merge re-pointed it), then as it was.
  await mergeRepo.setRelationEnds(
    scope.trx,
    scope.spaceId,
    changed.map(({ id, image }) => ({
      id,
      fromId: image.from_id as string,
      toId: image.to_id as string,
    })),
  );
  for (const { id, image } of changed) {
    await updateRelation(scope, id, image.type as string, {
      validFrom: isoOrNull(image.valid_from),
      validTo: isoOrNull(image.valid_to),
    });
  }
}
