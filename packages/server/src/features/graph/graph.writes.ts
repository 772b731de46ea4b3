import { randomUUID } from 'node:crypto';
import { ALIASES_MAX, type ObservationInput } from '@engram/shared';
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import * as changeRepo from './changes.repository.js';
import * as entityRepo from './entities.repository.js';
import * as observationRepo from './observations.repository.js';
import * as mergeRepo from './merge.repository.js';
import * as relationRepo from './relations.repository.js';
import { missingEntities, requireByName } from './names.js';
import type { WriteScope } from './write.js';

/**
 * The graph's write operations (decision 006), each run inside `write()`
 * (write.ts) on its scope. REST, MCP, imports, reverts and the web app write
 * through them, by id; name-addressed calls and imports only translate names
 * and file formats onto them. Each takes a batch of any size for a constant
 * number of statements; the counters (observation counts, degrees, type
 * counts, stored bytes) and the change-log events are kept here and nowhere
 * else.
 */

// ── input rules, the same for every caller ──────────────────────────────────

export interface CleanObservation {
  content: string;
  metadata?: Record<string, unknown>;
  /** When the fact held in the world, as its writer said. */
  validFrom?: string | undefined;
  validTo?: string | undefined;
  /** Kept on a lossless import. */
  id?: string;
  createdAt?: string;
}

/** 400 past the most aliases an entity has. */
export function assertAliasCount(count: number): void {
  if (count > ALIASES_MAX) {
    throw badRequest(
      'aliases',
      `An entity has at most ${ALIASES_MAX} aliases (this would give it ${count})`,
    );
  }
}

/**
 * Trims each text and drops blank ones and repeats (equal by
 * `observationKey`; the first one wins):
 * the rule for observations everywhere — REST, MCP, the web app, imports.
 */
export function cleanObservations(
  items: (ObservationInput | CleanObservation)[],
): CleanObservation[] {
  const seen = new Set<string>();
  const kept: CleanObservation[] = [];
  for (const item of items) {
    const observation = typeof item === 'string' ? { content: item } : item;
    const content = observation.content.trim();
    const key = observationKey(content);
    if (content.length === 0 || seen.has(key)) continue;
    seen.add(key);
    kept.push({ ...observation, content });
  }
  return kept;
}

/**
 * What makes two observations of one entity the same: their texts equal but
 * for case, spacing and end punctuation ("Likes tea." and "likes  tea").
 */
export function observationKey(content: string): string {
  return content
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.,;:!?…]+$/u, '');
}

export const nameTaken = (name: string) =>
  conflict(`An entity named "${name}" already exists`, 'name');

/** 409 when one of `names` is the name or an alias of an entity other than `except`. */
export async function assertNamesFree(
  scope: WriteScope,
  names: string[],
  except: string[],
  field: 'name' | 'aliases',
): Promise<void> {
  const [holder] = await mergeRepo.nameHolders(scope.trx, scope.spaceId, names, except);
  if (!holder) return;
  throw conflict(
    holder.given === holder.name
      ? `An entity named "${holder.name}" already exists`
      : `"${holder.given}" is an alias of "${holder.name}"`,
    field,
  );
}

// ── entities ────────────────────────────────────────────────────────────────

export interface NewEntity {
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  /** Kept on a lossless import and when a revert brings an entity back. */
  aliases?: string[] | undefined;
  observations: (ObservationInput | CleanObservation)[];
  /** Kept on a lossless import. */
  id?: string;
  createdAt?: string;
  updatedAt?: string;
}

export interface CreatedEntity {
  row: entityRepo.EntityRow;
  observations: observationRepo.ObservationRow[];
}

/**
 * Creates the entities whose names (and ids) are new, in the order given, with
 * their observations; a name given twice becomes one entity (the first one's
 * type and metadata, the observations of both). Existing names are skipped:
 * a caller that must refuse them compares what it gets back. One statement
 * for any number of entities, which stages their events (with `last`, the
 * write's last statement: decision 034); two on an import that keeps
 * observation ids.
 */
export async function createEntities(
  scope: WriteScope,
  entities: NewEntity[],
  { last = false }: { last?: boolean } = {},
): Promise<CreatedEntity[]> {
  type Wanted = Omit<NewEntity, 'observations'> & { observations: CleanObservation[] };
  const merged = new Map<string, Wanted>();
  for (const entity of entities) {
    const earlier = merged.get(entity.name);
    if (earlier) {
      earlier.observations = cleanObservations([...earlier.observations, ...entity.observations]);
    } else {
      merged.set(entity.name, { ...entity, observations: cleanObservations(entity.observations) });
    }
  }
  const wanted = [...merged.values()];
  // An imported observation id this account already uses gets a fresh one.
  const taken = await observationRepo.existingObservationIds(
    scope.trx,
    scope.spaceId,
    wanted.flatMap((entity) => entity.observations.flatMap((observation) => observation.id ?? [])),
  );
  const rows = await entityRepo.insertEntities(
    scope.trx,
    scope.spaceId,
    wanted.map((entity) => ({
      ...entity,
      id: entity.id ?? randomUUID(),
      observations: entity.observations.map((observation) => ({
        ...observation,
        id: observation.id && !taken.has(observation.id) ? observation.id : undefined,
      })),
    })),
    scope.stage(last),
  );
  scope.grew(rows.filter((row) => row.observations_count > 0));
  return rows.map(({ observations, ...row }) => ({ row, observations }));
}

/** What `updateEntity` may change; a field left out stays as it is. */
export interface EntityChange {
  name?: string | undefined;
  type?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  aliases?: string[] | undefined;
  observations?: ObservationInput[] | undefined;
}

/**
 * Changes one entity: name (refused when another entity has it), type,
 * metadata, and, when given, its whole list of observations (unchanged texts
 * keep their ids and dates).
 */
export async function updateEntity(
  scope: WriteScope,
  id: string,
  change: EntityChange,
): Promise<entityRepo.EntityRow> {
  const { trx, spaceId } = scope;
  const before = isUuid(id) ? await entityRepo.findEntity(trx, spaceId, id) : undefined;
  if (!before) throw notFound('Entity');
  const name = change.name ?? before.name;
  if (name !== before.name) await assertNamesFree(scope, [name], [id], 'name');
  // Its own name is no alias of it.
  const aliases = (change.aliases ?? (name !== before.name ? before.aliases : undefined))?.filter(
    (alias) => alias !== name,
  );
  if (aliases) {
    assertAliasCount(aliases.length);
    await assertNamesFree(
      scope,
      aliases.filter((alias) => !before.aliases.includes(alias)),
      [id],
      'aliases',
    );
  }
  const row = await entityRepo.updateEntity(trx, spaceId, id, {
    name,
    type: change.type ?? before.type,
    metadata: change.metadata,
    aliases,
  });
  if (!row) throw notFound('Entity');
  if (row.type !== before.type) {
    await entityRepo.adjustTypeCount(trx, spaceId, before.type, -1);
    await entityRepo.adjustTypeCount(trx, spaceId, row.type, 1);
  }
  if (change.observations) {
    await replaceObservations(scope, id, cleanObservations(change.observations));
  }
  scope.emit('entity_updated', { entityId: id, id, name: row.name, type: row.type });
  return (await entityRepo.findEntity(trx, spaceId, id))!;
}

/** Makes `wanted` the entity's list: unchanged texts keep their ids and dates. */
async function replaceObservations(
  scope: WriteScope,
  entityId: string,
  wanted: CleanObservation[],
): Promise<void> {
  const { trx, spaceId } = scope;
  const existing = await observationRepo.listObservations(trx, spaceId, [entityId]);
  const existingByContent = new Map(existing.map((row) => [row.content, row]));
  const wantedContents = new Set(wanted.map((item) => item.content));
  await observationRepo.deleteObservations(
    trx,
    spaceId,
    existing
      .filter((row) => !wantedContents.has(row.content))
      .map((row) => ({ entityId, id: row.id })),
  );
  const { counts } = await observationRepo.appendObservations(
    trx,
    spaceId,
    wanted
      .filter((item) => !existingByContent.has(item.content))
      .map((item) => ({
        entity: entityId,
        content: item.content,
        metadata: item.metadata,
        validFrom: item.validFrom,
        validTo: item.validTo,
      })),
  );
  scope.grew(counts);
  // Order follows the given list; new ones were appended, so renumber what moved.
  const all = await observationRepo.listObservations(trx, spaceId, [entityId]);
  const rowByContent = new Map(all.map((row) => [row.content, row]));
  for (const [position, item] of wanted.entries()) {
    const row = rowByContent.get(item.content)!;
    const kept = existingByContent.has(item.content);
    const metadataChanged = item.metadata && kept;
    // A kept text given with when it held takes that (absent: left as it was).
    const validity =
      kept && (item.validFrom !== undefined || item.validTo !== undefined)
        ? { validFrom: item.validFrom ?? null, validTo: item.validTo ?? null }
        : undefined;
    if (row.position !== position || metadataChanged || validity) {
      await observationRepo.updateObservation(trx, spaceId, row.id, {
        position,
        metadata: metadataChanged ? item.metadata : undefined,
        validity,
      });
    }
  }
}

/**
 * Deletes the entities named by id or by name (`by`) with their observations
 * and relations; unknown keys are skipped. One statement, which stages its
 * events (with `last`, the write's last statement: decision 034).
 */
export async function deleteEntities(
  scope: WriteScope,
  keys: string[],
  { by = 'id', last = false }: { by?: 'id' | 'name'; last?: boolean } = {},
): Promise<entityRepo.EntityRow[]> {
  return entityRepo.deleteEntities(
    scope.trx,
    scope.spaceId,
    by === 'id' ? keys.filter(isUuid) : keys,
    by,
    scope.stage(last),
  );
}

// ── observations ────────────────────────────────────────────────────────────

/**
 * Appends observations to existing entities, skipping texts an entity already
 * has. An addition whose texts are all blank is refused (400 on `field`):
 * asking to add nothing is a mistake, whoever asks. Entities are named by id
 * or, for name-addressed calls, by name (`by`), resolved in the appending
 * statement; each must exist (by name the refusal names every missing one, by
 * id it is 404 Entity). One statement for any number of entities, which
 * stages its events (with `last`, the write's last statement: decision 034);
 * returns what each entity gained, by the key it was named with.
 */
export async function addObservations(
  scope: WriteScope,
  additions: { entity: string; observations: ObservationInput[]; field: string }[],
  by: 'id' | 'name' = 'id',
  { last = false }: { last?: boolean } = {},
): Promise<Map<string, observationRepo.ObservationRow[]>> {
  const perEntity = new Map<string, CleanObservation[]>();
  for (const addition of additions) {
    const cleaned = cleanObservations(addition.observations);
    if (cleaned.length === 0) {
      // A missing entity is refused before a blank text, whatever the order.
      if (by === 'name') {
        await requireByName(
          scope.trx,
          scope.spaceId,
          additions.map((each) => each.entity),
        );
      }
      throw badRequest(addition.field, 'Give at least one observation that is not blank');
    }
    const earlier = perEntity.get(addition.entity) ?? [];
    perEntity.set(addition.entity, cleanObservations([...earlier, ...cleaned]));
  }
  const { added, counts, byKey } = await observationRepo
    .appendObservations(
      scope.trx,
      scope.spaceId,
      [...perEntity].flatMap(([entity, items]) =>
        items.map((item) => ({
          entity,
          content: item.content,
          metadata: item.metadata,
          validFrom: item.validFrom,
          validTo: item.validTo,
        })),
      ),
      by,
      scope.stage(last),
    )
    .catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== changeRepo.MISSING_ENTITIES) throw error;
      if (by === 'id') throw notFound('Entity');
      const unknown = new Set(JSON.parse((error as Error).message) as string[]);
      throw missingEntities([...perEntity.keys()].filter((name) => unknown.has(name)));
    });
  scope.grew(counts);
  // By name, under the key given: an alias's additions are reported under the alias.
  return by === 'id' ? groupBy(added, (row) => row.entity_id) : byKey;
}

/**
 * Removes observations by text from entities named by name; unknown names
 * and texts are skipped. One statement, which stages its events (with
 * `last`, the write's last statement: decision 034).
 */
export async function deleteObservationsByName(
  scope: WriteScope,
  removals: { entityName: string; contents: string[] }[],
  { last = false }: { last?: boolean } = {},
): Promise<void> {
  await observationRepo.deleteObservationsByName(
    scope.trx,
    scope.spaceId,
    removals.flatMap(({ entityName, contents }) =>
      // Stored texts are trimmed, so match them trimmed.
      contents.map((content) => ({ entityName, content: content.trim() })),
    ),
    scope.stage(last),
  );
}

// ── relations ───────────────────────────────────────────────────────────────

const relationPayload = (row: relationRepo.RelationRow) => ({
  relationId: row.id,
  id: row.id,
  fromEntityId: row.from_id,
  toEntityId: row.to_id,
  relationType: row.type,
});

/**
 * Creates the relations that are new (a triple or imported id that exists is
 * skipped), in the order given; both ends must exist. Two statements for any
 * number of relations.
 */
export async function createRelations(
  scope: WriteScope,
  relations: relationRepo.RelationInsert[],
): Promise<relationRepo.RelationRow[]> {
  const unique = new Map(
    relations.map((relation) => [`${relation.fromId} ${relation.toId} ${relation.type}`, relation]),
  );
  const rows = await relationRepo.insertRelations(scope.trx, scope.spaceId, [...unique.values()]);
  for (const row of rows) scope.emit('relation_created', relationPayload(row));
  return rows;
}

/** Creates the relations whose two ends exist in the space and differ (an import's); the rest are left out. */
export async function createRelationsWhereEndsExist(
  scope: WriteScope,
  relations: relationRepo.RelationInsert[],
): Promise<relationRepo.RelationRow[]> {
  const ends = [...new Set(relations.flatMap((relation) => [relation.fromId, relation.toId]))];
  const present = new Set(
    (await entityRepo.findEntitiesByIds(scope.trx, scope.spaceId, ends)).map((row) => row.id),
  );
  return createRelations(
    scope,
    relations.filter(
      (relation) =>
        relation.fromId !== relation.toId &&
        present.has(relation.fromId) &&
        present.has(relation.toId),
    ),
  );
}

/**
 * Creates the relations that are new between entities named by name (a
 * triple that exists is skipped), in the order given; every end must exist
 * (the refusal names each missing one, in the order given). One statement,
 * which stages its events (with `last`, the write's last statement: decision
 * 034). Returns the created ones with their ends' names.
 */
export async function createRelationsByName(
  scope: WriteScope,
  relations: relationRepo.NamedRelationInsert[],
  { last = false }: { last?: boolean } = {},
): Promise<(relationRepo.RelationRow & { from_name: string; to_name: string })[]> {
  const unique = new Map(
    relations.map((relation) => [
      JSON.stringify([relation.from, relation.to, relation.type]),
      relation,
    ]),
  );
  return relationRepo
    .insertRelationsByName(scope.trx, scope.spaceId, [...unique.values()], scope.stage(last))
    .catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== changeRepo.MISSING_ENTITIES) throw error;
      const unknown = new Set(JSON.parse((error as Error).message) as string[]);
      const named = new Set(relations.flatMap((relation) => [relation.from, relation.to]));
      throw missingEntities([...named].filter((name) => unknown.has(name)));
    });
}

/**
 * Retypes one relation, and sets when it held when given (each of `validFrom`
 * and `validTo` only when present; null clears it); refused when the same two
 * entities already have that type.
 */
export async function updateRelation(
  scope: WriteScope,
  id: string,
  type: string,
  validity?: { validFrom?: string | null | undefined; validTo?: string | null | undefined },
): Promise<relationRepo.RelationRow> {
  const { trx, spaceId } = scope;
  const before = isUuid(id) ? await relationRepo.findRelation(trx, spaceId, id) : undefined;
  if (!before) throw notFound('Relation');
  if (before.type !== type) {
    const [clash] = await relationRepo.findRelationsByTriples(trx, spaceId, [
      { fromId: before.from_id, toId: before.to_id, type },
    ]);
    if (clash) throw conflict('An identical relation already exists', 'type');
  }
  if (validity) {
    await relationRepo.setRelationValidity(trx, spaceId, id, {
      validFrom:
        validity.validFrom === undefined ? isoOrNull(before.valid_from) : validity.validFrom,
      validTo: validity.validTo === undefined ? isoOrNull(before.valid_to) : validity.validTo,
    });
  }
  const row = await relationRepo.updateRelationType(trx, spaceId, id, type);
  if (!row) throw notFound('Relation');
  scope.emit('relation_updated', relationPayload(row));
  return row;
}

/**
 * Deletes relations by their ends' names and type; relations and names that
 * do not exist are skipped. One statement, which stages its events (with
 * `last`, the write's last statement: decision 034).
 */
export async function deleteRelationsByName(
  scope: WriteScope,
  relations: { from: string; to: string; type: string }[],
  { last = false }: { last?: boolean } = {},
): Promise<void> {
  await relationRepo.deleteRelationsByName(scope.trx, scope.spaceId, relations, scope.stage(last));
}

/** Deletes relations by id; unknown ids are skipped. */
export async function deleteRelations(
  scope: WriteScope,
  ids: string[],
): Promise<relationRepo.RelationRow[]> {
  const rows = await relationRepo.deleteRelations(scope.trx, scope.spaceId, ids.filter(isUuid));
  for (const row of rows) scope.emit('relation_deleted', relationPayload(row));
  return rows;
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(key(item));
    if (list) list.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

export const isoOrNull = (value: unknown) =>
  value === null || value === undefined ? null : new Date(value as string).toISOString();
