import type { Entity, Observation, ObservationInput } from '@engram/shared';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { notFound } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import * as entityRepo from './entities.repository.js';
import * as writes from './graph.writes.js';
import { write } from './write.js';
import type { GraphDeps } from './graph-deps.js';
import { toObservation, withObservations } from './wire-shapes.js';

/**
 * Appends observations to one entity by id (404 when there is none); blank
 * texts and texts the entity already has are skipped. Returns the entity and
 * what it gained.
 */
export async function addObservations(
  deps: GraphDeps,
  auth: SpaceAuth,
  id: string,
  items: ObservationInput[],
): Promise<{ entity: Entity; added: Observation[] }> {
  const { result } = await write(deps, auth, async (scope) => {
    const exists = isUuid(id) && (await entityRepo.findEntity(scope.trx, auth.space.id, id));
    if (!exists) throw notFound('Entity');
    const added = await writes.addObservations(scope, [
      { entity: id, observations: items, field: 'observations' },
    ]);
    const row = await entityRepo.findEntity(scope.trx, auth.space.id, id);
    const { entities } = await withObservations({ ...deps, db: scope.trx }, auth.space.id, [row!]);
    return { entity: entities[0]!, added: (added.get(id) ?? []).map(toObservation) };
  });
  return result;
}

/**
 * Adds the contents each named entity does not have yet; every named entity
 * must exist (404 naming the missing ones). Each addition reports what it
 * added under the name or alias it gave; a name given twice reports once,
 * under its first mention, and a text given under a name and an alias of one
 * entity is added once, under the first.
 */
export async function addObservationsByName(
  deps: GraphDeps,
  auth: SpaceAuth,
  additions: {
    entityName: string;
    contents: string[];
    /** When these facts held in the world, as the agent says. */
    validFrom?: string | undefined;
    validTo?: string | undefined;
  }[],
): Promise<{ entityName: string; addedObservations: string[] }[]> {
  const { result } = await write(deps, auth, async (scope) => {
    const added = await writes.addObservations(
      scope,
      additions.map((addition, index) => ({
        entity: addition.entityName,
        observations:
          addition.validFrom === undefined && addition.validTo === undefined
            ? addition.contents
            : addition.contents.map((content) => ({
                content,
                validFrom: addition.validFrom,
                validTo: addition.validTo,
              })),
        field: `observations.${index}.contents`,
      })),
      'name',
      { last: true },
    );
    const reported = new Set<string>();
    return additions.map(({ entityName }) => {
      const gained = reported.has(entityName) ? [] : (added.get(entityName) ?? []);
      reported.add(entityName);
      return { entityName, addedObservations: gained.map((row) => row.content) };
    });
  });
  return result;
}

/** Removes the given contents from each named entity; unknown entities and contents are ignored. */
export async function deleteObservationsByName(
  deps: GraphDeps,
  auth: SpaceAuth,
  deletions: { entityName: string; observations: string[] }[],
): Promise<void> {
  await write(deps, auth, (scope) =>
    writes.deleteObservationsByName(
      scope,
      deletions.map(({ entityName, observations }) => ({ entityName, contents: observations })),
      { last: true },
    ),
  );
}
