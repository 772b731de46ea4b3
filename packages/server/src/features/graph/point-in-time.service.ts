import {
  parseAsOf,
  type AsOf as ParsedAsOf,
  type Entity,
  type EntityList,
  type GraphData,
  type RecallAnswer,
  type RelationList,
} from '@engram/shared';
import type { SpaceAuth } from '../../lib/auth-context.js';
import * as entities from './entities.service.js';
import * as reads from './graph-reads.service.js';
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

/** A question as recall takes it (the recall feature's `RecallInput`). */
export interface RecallQuestion {
  query: string;
  limit: number;
  entityTypes?: string[] | undefined;
  entityNames?: string[] | undefined;
}

/**
 * What the graph asks of its history: the reads as of a past seq (each
 * taking the seq `seqOf` resolved, last), and purging an entity with its
 * history. The history feature, created after the graph (it reverts through
 * the graph's write path), attaches it when it is created: the arrows
 * between the two stay one-way (decision 040).
 */
export interface HistoryPort {
  /** The seq `asOf` names; 400 on `field` when the history kept starts later. */
  seqOf(auth: SpaceAuth, asOf: ParsedAsOf, field: string): Promise<number>;
  getEntity(auth: SpaceAuth, id: string, seq: number): Promise<Entity>;
  listEntities(auth: SpaceAuth, filter: entities.EntityFilter, seq: number): Promise<EntityList>;
  listRelations(
    auth: SpaceAuth,
    filter: relations.RelationFilter,
    seq: number,
  ): Promise<RelationList>;
  graphData(auth: SpaceAuth, options: GraphWalk, seq: number): Promise<GraphData>;
  graphAround(auth: SpaceAuth, id: string, options: GraphWalk, seq: number): Promise<GraphData>;
  readGraph(auth: SpaceAuth, page: reads.Page, seq: number): Promise<MemoryGraph>;
  searchNodes(auth: SpaceAuth, query: string, page: reads.Page, seq: number): Promise<MemoryGraph>;
  openNodes(auth: SpaceAuth, names: string[], seq: number): Promise<MemoryGraph>;
  recall(auth: SpaceAuth, question: RecallQuestion, seq: number): Promise<RecallAnswer>;
  /** Deletes an entity for good: its history and its events' texts go too. */
  purgeEntity(auth: SpaceAuth, id: string): Promise<void>;
}

/** How far a drawing walks from its root, and how many entities it may hold. */
export interface GraphWalk {
  depth: number;
  limit: number;
  rootEntityId?: string | undefined;
}

/** Where the attached history is kept: one per graph service. */
export interface HistorySlot {
  port?: HistoryPort;
}

/** The attached history; a graph without one answers only the present. */
export function historyOf(deps: GraphDeps): HistoryPort {
  if (!deps.history.port) throw new Error('No history is attached to the graph (features/history)');
  return deps.history.port;
}

/** The past's reader with the seq `asOf` names, or undefined for the present. */
async function pastOf(deps: GraphDeps, auth: SpaceAuth, asOf: AsOf | undefined) {
  if (!asOf) return undefined;
  const parsed = parseAsOf(asOf.value);
  // The shared schemas refuse what does not parse before a read is called.
  if (!parsed) throw new TypeError(`unparsed asOf reached a read: ${asOf.value}`);
  const reader = historyOf(deps);
  return { reader, seq: await reader.seqOf(auth, parsed, asOf.field) };
}

export async function getEntity(
  deps: GraphDeps,
  auth: SpaceAuth,
  id: string,
  asOf?: AsOf,
): Promise<Entity> {
  const past = await pastOf(deps, auth, asOf);
  return past ? past.reader.getEntity(auth, id, past.seq) : entities.getEntity(deps, auth, id);
}

export async function listEntities(
  deps: GraphDeps,
  auth: SpaceAuth,
  filter: entities.EntityFilter,
  asOf?: AsOf,
): Promise<EntityList> {
  const past = await pastOf(deps, auth, asOf);
  return past
    ? past.reader.listEntities(auth, filter, past.seq)
    : entities.listEntities(deps, auth, filter);
}

export async function listRelations(
  deps: GraphDeps,
  auth: SpaceAuth,
  filter: relations.RelationFilter,
  asOf?: AsOf,
): Promise<RelationList> {
  const past = await pastOf(deps, auth, asOf);
  return past
    ? past.reader.listRelations(auth, filter, past.seq)
    : relations.listRelations(deps, auth, filter);
}

/** The graph for drawing: around `rootEntityId` when given, else the best-connected entities. */
export async function graphData(
  deps: GraphDeps,
  auth: SpaceAuth,
  options: GraphWalk,
  asOf?: AsOf,
): Promise<GraphData> {
  const past = await pastOf(deps, auth, asOf);
  if (past) return past.reader.graphData(auth, options, past.seq);
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
  const past = await pastOf(deps, auth, asOf);
  return past
    ? past.reader.graphAround(auth, id, options, past.seq)
    : reads.graphAround(deps, auth, id, options);
}

export async function readGraph(
  deps: GraphDeps,
  auth: SpaceAuth,
  page: reads.Page = {},
  asOf?: AsOf,
): Promise<MemoryGraph> {
  const past = await pastOf(deps, auth, asOf);
  return past ? past.reader.readGraph(auth, page, past.seq) : reads.readGraph(deps, auth, page);
}

export async function searchNodes(
  deps: GraphDeps,
  auth: SpaceAuth,
  query: string,
  page: reads.Page = {},
  asOf?: AsOf,
): Promise<MemoryGraph> {
  const past = await pastOf(deps, auth, asOf);
  return past
    ? past.reader.searchNodes(auth, query, page, past.seq)
    : reads.searchNodes(deps, auth, query, page);
}

export async function openNodes(
  deps: GraphDeps,
  auth: SpaceAuth,
  names: string[],
  asOf?: AsOf,
): Promise<MemoryGraph> {
  const past = await pastOf(deps, auth, asOf);
  return past ? past.reader.openNodes(auth, names, past.seq) : reads.openNodes(deps, auth, names);
}

/**
 * Recall as of a past point, for the recall feature (which answers the
 * present itself): the observations then that share the question's words.
 */
export async function recallAsOf(
  deps: GraphDeps,
  auth: SpaceAuth,
  question: RecallQuestion,
  asOf: AsOf,
) {
  const past = (await pastOf(deps, auth, asOf))!;
  return past.reader.recall(auth, question, past.seq);
}

/** Deletes an entity for good (`?purge=true`): history's part of the graph's delete. */
export async function purgeEntity(deps: GraphDeps, auth: SpaceAuth, id: string): Promise<void> {
  return historyOf(deps).purgeEntity(auth, id);
}
