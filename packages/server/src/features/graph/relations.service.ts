import type { McpRelation, Relation, RelationList } from '@engram/shared';
import type { Db } from '../../db/connection.js';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { badRequest, conflict, notFound, notFoundBecause } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import * as entityRepo from './entities.repository.js';
import * as relationRepo from './relations.repository.js';
import * as writes from './graph.writes.js';
import { write } from './write.js';
import { entityNameOf, typeNameOf } from './names.js';
import type { GraphDeps } from './graph-deps.js';
import { byteLength } from './read-bounds.js';
import { toRelation } from './wire-shapes.js';

async function relationWithEnds(db: Db, spaceId: string, row: relationRepo.RelationRow) {
  const [from, to] = await Promise.all([
    entityRepo.findEntity(db, spaceId, row.from_id),
    entityRepo.findEntity(db, spaceId, row.to_id),
  ]);
  return toRelation({
    ...row,
    from_name: from?.name ?? 'Unknown',
    from_type: from?.type ?? 'unknown',
    to_name: to?.name ?? 'Unknown',
    to_type: to?.type ?? 'unknown',
  });
}

/** One end of a relation by id, or the 404 naming which end is missing. */
async function requireEnd(db: Db, spaceId: string, id: string, end: 'Source' | 'Target') {
  const row = isUuid(id) ? await entityRepo.findEntity(db, spaceId, id) : undefined;
  if (row) return row;
  const message = `${end} entity not found`;
  throw notFoundBecause(message, end === 'Source' ? 'fromEntityId' : 'toEntityId');
}

/** Creates one relation by its ends' ids; 409 when the same triple exists. */
export async function createRelation(
  deps: GraphDeps,
  auth: SpaceAuth,
  input: {
    fromEntityId: string;
    toEntityId: string;
    type: string;
    validFrom?: string | undefined;
    validTo?: string | undefined;
  },
): Promise<Relation> {
  if (input.fromEntityId === input.toEntityId) {
    throw badRequest('toEntityId', 'Source and target entities cannot be the same');
  }
  const { result } = await write(deps, auth, async (scope) => {
    const from = await requireEnd(scope.trx, auth.space.id, input.fromEntityId, 'Source');
    const to = await requireEnd(scope.trx, auth.space.id, input.toEntityId, 'Target');
    const [row] = await writes.createRelations(scope, [
      {
        fromId: from.id,
        toId: to.id,
        type: input.type,
        validFrom: input.validFrom,
        validTo: input.validTo,
      },
    ]);
    if (!row) throw conflict(`"${from.name}" already ${input.type} "${to.name}"`, 'type');
    return toRelation({
      ...row,
      from_name: from.name,
      from_type: from.type,
      to_name: to.name,
      to_type: to.type,
    });
  });
  return result;
}

/**
 * Creates the relations that are new, by their ends' names, and returns them;
 * triples that exist are skipped, and both ends must exist (404 naming the
 * missing ones).
 */
export async function createRelationsByName(
  deps: GraphDeps,
  auth: SpaceAuth,
  relations: (McpRelation & { validFrom?: string | undefined; validTo?: string | undefined })[],
): Promise<McpRelation[]> {
  const wanted = relations.map((relation, index) => {
    const from = entityNameOf(relation.from, `relations.${index}.from`);
    const to = entityNameOf(relation.to, `relations.${index}.to`);
    const relationType = typeNameOf(
      relation.relationType,
      `relations.${index}.relationType`,
      'relationType',
    );
    if (from === to) {
      throw badRequest(`relations.${index}.to`, `A relation cannot connect "${from}" to itself`);
    }
    return { from, to, relationType, validFrom: relation.validFrom, validTo: relation.validTo };
  });
  if (wanted.length === 0) return [];

  const { result } = await write(deps, auth, async (scope) => {
    const rows = await writes.createRelationsByName(
      scope,
      wanted.map(({ from, to, relationType, validFrom, validTo }) => ({
        from,
        to,
        type: relationType,
        validFrom,
        validTo,
      })),
      { last: true },
    );
    return rows.map((row) => ({ from: row.from_name, to: row.to_name, relationType: row.type }));
  });
  return result;
}

/** Retypes one relation by id; its ends cannot change. */
export async function updateRelation(
  deps: GraphDeps,
  auth: SpaceAuth,
  id: string,
  input: {
    type: string;
    validFrom?: string | null | undefined;
    validTo?: string | null | undefined;
  },
): Promise<Relation> {
  const { result } = await write(deps, auth, async (scope) => {
    const validity =
      input.validFrom === undefined && input.validTo === undefined
        ? undefined
        : { validFrom: input.validFrom, validTo: input.validTo };
    const row = await writes.updateRelation(scope, id, input.type, validity);
    return relationWithEnds(scope.trx, auth.space.id, row);
  });
  return result;
}

/**
 * Deletes one relation by id; 404 when there is none. Answers the call's seq
 * (history's `callSeq`), which a revert undoes.
 */
export async function deleteRelation(
  deps: GraphDeps,
  auth: SpaceAuth,
  id: string,
): Promise<{ callSeq: number }> {
  const { seqs } = await write(deps, auth, async (scope) => {
    const [row] = await writes.deleteRelations(scope, [id]);
    if (!row) throw notFound('Relation');
  });
  // 0 when the call changed nothing.
  return { callSeq: seqs[0] ?? 0 };
}

/** Deletes the given relations by their ends' names; ones that do not exist are ignored. */
export async function deleteRelationsByName(
  deps: GraphDeps,
  auth: SpaceAuth,
  relations: McpRelation[],
): Promise<void> {
  await write(deps, auth, (scope) =>
    writes.deleteRelationsByName(
      scope,
      relations.map(({ from, to, relationType }) => ({ from, to, type: relationType })),
      { last: true },
    ),
  );
}

/**
 * One page of relations, cut by bytes at a whole relation:
 * `nextOffset` is where the next page starts, `truncated` whether the read
 * limits rather than the end of the list stopped it short.
 */
/** What the relation list (`GET /api/relations`) filters and pages by. */
export interface RelationFilter {
  query?: string | undefined;
  relationTypes?: string[] | undefined;
  entityId?: string | undefined;
  limit: number;
  offset: number;
}

export async function listRelations(
  deps: GraphDeps,
  auth: SpaceAuth,
  filter: RelationFilter,
): Promise<RelationList> {
  // An entityId that is no uuid names no entity: nothing touches it.
  if (filter.entityId !== undefined && !isUuid(filter.entityId)) {
    return { relations: [], total: 0, nextOffset: null, truncated: false };
  }
  const { rows, total } = await relationRepo.listRelations(deps.db, auth.space.id, {
    ...filter,
    limit: Math.min(filter.limit, deps.bounds.maxRows),
    types: filter.relationTypes,
  });
  let bytesLeft = deps.bounds.maxBytes;
  const kept = rows.filter((row) => {
    bytesLeft -= byteLength(row.from_name) + byteLength(row.to_name) + 2 * byteLength(row.type);
    return bytesLeft >= 0;
  });
  const relations = kept.map(toRelation);
  const next = filter.offset + relations.length;
  const more = next < total;
  return {
    relations,
    total,
    nextOffset: more ? next : null,
    truncated: more && (kept.length < rows.length || relations.length < filter.limit),
  };
}
