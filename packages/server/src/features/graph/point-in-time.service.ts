import { parseAsOf, type Entity, type EntityList, type GraphData } from '@engram/shared';
import type { RelationList } from '@engram/shared';
import type { SpaceAuth } from '../../lib/auth-context.js';
import * as past from './as-of.service.js';
import * as entities from './entities.service.js';
import * as reads from './graph-reads.service.js';
import { resolveAsOf } from './history.service.js';
import type { MemoryGraph } from './memory-graph.js';
import type { GraphDeps } from './read-bounds.js';
import * as relations from './relations.service.js';

/**
 * The reads adapters call, each with an optional `asOf` (docs/history.md):
 * without it, the present's read; with it, the same answer as the graph was
 * then. The choice is made here, once, so a route or a tool calls one
 * function whether it reads the present or the past.
 */

/** A read's moment in the past as the caller gave it (a time or `seq:N`), and the field a refusal names. */
export interface AsOf {
  value: string;
  /** `query.asOf` on REST, `asOf` for an MCP tool. */
  field: string;
}

/** `asOf` as a read takes it: undefined (the present) when the caller gave none. */
export const asOfArgument = (value: string | undefined, field: string): AsOf | undefined =>
  value === undefined ? undefined : { value, field };

/** The seq `asOf` names (400 on its field when the history kept starts later), or undefined for the present. */
async function seqOf(deps: GraphDeps, auth: SpaceAuth, asOf: AsOf | undefined) {
  if (!asOf) return undefined;
  const parsed = parseAsOf(asOf.value);
  // The shared schemas refuse what does not parse before a read is called.
  if (!parsed) throw new TypeError(`unparsed asOf reached a read: ${asOf.value}`);
  return resolveAsOf(deps, auth, parsed, asOf.field);
}

export async function getEntity(
  deps: GraphDeps,
  auth: SpaceAuth,
  id: string,
  asOf?: AsOf,
): Promise<Entity> {
  const seq = await seqOf(deps, auth, asOf);
  return seq === undefined
    ? entities.getEntity(deps, auth, id)
    : past.getEntityAt(deps, auth, id, seq);
}

export async function listEntities(
  deps: GraphDeps,
  auth: SpaceAuth,
  filter: entities.EntityFilter,
  asOf?: AsOf,
): Promise<EntityList> {
  const seq = await seqOf(deps, auth, asOf);
  return seq === undefined
    ? entities.listEntities(deps, auth, filter)
    : past.listEntitiesAt(deps, auth, filter, seq);
}

export async function listRelations(
  deps: GraphDeps,
  auth: SpaceAuth,
  filter: relations.RelationFilter,
  asOf?: AsOf,
): Promise<RelationList> {
  const seq = await seqOf(deps, auth, asOf);
  return seq === undefined
    ? relations.listRelations(deps, auth, filter)
    : past.listRelationsAt(deps, auth, filter, seq);
}

/** The graph for drawing: around `rootEntityId` when given, else the best-connected entities. */
export async function graphData(
  deps: GraphDeps,
  auth: SpaceAuth,
  options: { depth: number; limit: number; rootEntityId?: string | undefined },
  asOf?: AsOf,
): Promise<GraphData> {
  const seq = await seqOf(deps, auth, asOf);
  if (seq !== undefined) return past.graphDataAt(deps, auth, options, seq);
  const { rootEntityId, ...walk } = options;
  return rootEntityId
    ? reads.graphAround(deps, auth, rootEntityId, walk)
    : reads.graphOverview(deps, auth, walk);
}

export async function graphAround(
  deps: GraphDeps,
  auth: SpaceAuth,
  id: string,
  options: { depth: number; limit: number },
  asOf?: AsOf,
): Promise<GraphData> {
  const seq = await seqOf(deps, auth, asOf);
  return seq === undefined
    ? reads.graphAround(deps, auth, id, options)
    : past.graphAroundAt(deps, auth, id, options, seq);
}

export async function readGraph(
  deps: GraphDeps,
  auth: SpaceAuth,
  page: reads.Page = {},
  asOf?: AsOf,
): Promise<MemoryGraph> {
  const seq = await seqOf(deps, auth, asOf);
  return seq === undefined
    ? reads.readGraph(deps, auth, page)
    : past.readGraphAt(deps, auth, page, seq);
}

export async function searchNodes(
  deps: GraphDeps,
  auth: SpaceAuth,
  query: string,
  page: reads.Page = {},
  asOf?: AsOf,
): Promise<MemoryGraph> {
  const seq = await seqOf(deps, auth, asOf);
  return seq === undefined
    ? reads.searchNodes(deps, auth, query, page)
    : past.searchNodesAt(deps, auth, query, page, seq);
}

export async function openNodes(
  deps: GraphDeps,
  auth: SpaceAuth,
  names: string[],
  asOf?: AsOf,
): Promise<MemoryGraph> {
  const seq = await seqOf(deps, auth, asOf);
  return seq === undefined
    ? reads.openNodes(deps, auth, names)
    : past.openNodesAt(deps, auth, names, seq);
}

/**
 * Recall as of a past point, for the recall feature (which answers the
 * present itself): the observations then that share the question's words.
 */
export async function recallAsOf(
  deps: GraphDeps,
  auth: SpaceAuth,
  question: past.RecallQuestion,
  asOf: AsOf,
) {
  const seq = (await seqOf(deps, auth, asOf))!;
  return past.recallAt(deps, auth, question, seq);
}
