import type { Entity, GraphData, Observation, Relation } from '@engram/shared';
import type * as entityRepo from './entities.repository.js';
import type * as observationRepo from './observations.repository.js';
import type * as relationRepo from './relations.repository.js';
import type { GraphDeps } from './graph-deps.js';
import { boundEntities, type BoundedEntities } from './read-bounds.js';

/** Rows shaped into the graph's wire objects (packages/shared `graph` schemas). */

const iso = (date: Date) => date.toISOString();

/** When a fact held, as its writer said: present only when said. */
export function validityOf(row: {
  valid_from?: Date | string | null;
  valid_to?: Date | string | null;
}) {
  return {
    ...(row.valid_from ? { validFrom: new Date(row.valid_from).toISOString() } : {}),
    ...(row.valid_to ? { validTo: new Date(row.valid_to).toISOString() } : {}),
  };
}

export function toObservation(row: observationRepo.ObservationRow): Observation {
  return {
    id: row.id,
    content: row.content,
    createdAt: iso(row.created_at),
    ...(row.metadata ? { metadata: row.metadata } : {}),
    ...validityOf(row),
  };
}

export function toEntity(
  row: entityRepo.EntityRow,
  observations: observationRepo.ObservationRow[],
): Entity {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    aliases: row.aliases ?? [],
    metadata: row.metadata,
    observations: observations.map(toObservation),
    observationsCount: row.observations_count,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export function toRelation(row: relationRepo.RelationWithEndsRow): Relation {
  return {
    id: row.id,
    fromEntityId: row.from_id,
    toEntityId: row.to_id,
    type: row.type,
    relationType: row.type,
    createdAt: iso(row.created_at),
    fromEntity: { id: row.from_id, name: row.from_name, type: row.from_type },
    toEntity: { id: row.to_id, name: row.to_name, type: row.to_type },
    ...validityOf(row),
  };
}

/** The entities that fit one answer, with their observations; `cut` when some did not. */
export async function withObservations(
  deps: GraphDeps,
  accountId: string,
  given: entityRepo.EntityRow[],
) {
  return toEntities(await boundEntities(deps.db, accountId, given, deps.bounds));
}

export function toEntities(bounded: BoundedEntities) {
  const entities = bounded.rows.map((row) => {
    const entity = toEntity(row, bounded.observations.get(row.id) ?? []);
    return row === bounded.observationsCutOf ? { ...entity, observationsTruncated: true } : entity;
  });
  return { entities, cut: bounded.cut || bounded.observationsCutOf !== undefined };
}

export function toGraphData(
  nodes: relationRepo.NodeRow[],
  relations: Pick<relationRepo.RelationRow, 'id' | 'from_id' | 'to_id' | 'type'>[],
): GraphData {
  return {
    entities: nodes.map((node) => ({
      id: node.id,
      name: node.name,
      type: node.type,
      observationsCount: node.observations_count,
    })),
    relations: relations.map((row) => ({
      id: row.id,
      fromEntityId: row.from_id,
      toEntityId: row.to_id,
      relationType: row.type,
      type: row.type,
    })),
  };
}
