import type { Entity } from '@engram/shared';
import { OBSERVATION_TYPE, type GraphView } from '@/components/graph-canvas';

/*
 * The entity page's graph (docs/product.md, Calls; States; Numbers): the
 * entity's depth-1 neighbourhood, or, when that call fails, the entity and its
 * observations drawn as a graph of their own.
 */

/** The relation linking the entity to its observations in the fallback graph (docs/product.md, States). */
export const FALLBACK_RELATION = 'contains';
/** How many observations the fallback graph shows (docs/product.md, Numbers). */
export const FALLBACK_OBSERVATIONS = 10;

/** The entity screen's mini graph (docs/product.md, Calls; Numbers). */
export const ENTITY_GRAPH_DEPTH = 1;
export const ENTITY_GRAPH_LIMIT = 50;

/** Id of the node standing for observation `observationId` in the fallback graph. */
export const observationNodeId = (observationId: string) => `observation:${observationId}`;

/**
 * The entity screen's graph when the graph call fails (docs/product.md, States): the entity
 * and its first 10 observations as nodes of type observation (labels cut at
 * 30 by `nodeLabel`), each linked from the entity by 'contains'.
 */
export function fallbackGraph(
  entity: Pick<Entity, 'id' | 'name' | 'type' | 'observationsCount' | 'observations'>,
): GraphView {
  const observations = entity.observations.slice(0, FALLBACK_OBSERVATIONS);
  return {
    nodes: [
      {
        id: entity.id,
        name: entity.name,
        type: entity.type,
        observationsCount: entity.observationsCount,
      },
      ...observations.map((observation) => ({
        id: observationNodeId(observation.id),
        name: observation.content,
        type: OBSERVATION_TYPE,
        observationsCount: 0,
      })),
    ],
    edges: observations.map((observation) => ({
      id: `${FALLBACK_RELATION}:${observation.id}`,
      source: entity.id,
      target: observationNodeId(observation.id),
      relationType: FALLBACK_RELATION,
    })),
  };
}
