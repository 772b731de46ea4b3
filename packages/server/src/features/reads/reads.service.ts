import { parseAsOf, type RecallAnswer } from '@engram/shared';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { bindService } from '../feature.js';
import type {
  EntityFilter,
  GraphService,
  GraphWalk,
  Page,
  RelationFilter,
} from '../graph/index.js';
import type { PastReads, RecallQuestion } from '../history/index.js';

/**
 * The reads adapters call, each with an optional `asOf` (docs/history.md):
 * without it, the graph's read of the present; with it, history's read of
 * the same answer as the graph was then. `asOf` is parsed and resolved to a
 * seq here, once, so a route or a tool calls one method for either.
 */

export interface ReadsDeps {
  /** The present's reads. */
  graph: Pick<
    GraphService,
    | 'getEntity'
    | 'listEntities'
    | 'listRelations'
    | 'graphData'
    | 'graphAround'
    | 'readGraph'
    | 'searchNodes'
    | 'openNodes'
  >;
  /** The past's reads, by seq, and `asOf` resolved to a seq (history's). */
  past: PastReads;
}

/** A read's moment in the past as the caller gave it (a time or `seq:N`), and the field a refusal names. */
export interface AsOf {
  value: string;
  /** `query.asOf` on REST, `asOf` for an MCP tool. */
  field: string;
}

/** `asOf` as a read takes it: undefined (the present) when the caller gave none. */
export const asOfArgument = (value: string | undefined, field: string): AsOf | undefined =>
  value === undefined ? undefined : { value, field };

/** A past point as the reads resolved it: the seq read at, and the time `asOf` named (none for `seq:N`). */
export interface PastPoint {
  seq: number;
  at: Date | undefined;
}

/** The seq and time `asOf` names; 400 on its field when the history kept starts later. */
export async function pointOf(deps: ReadsDeps, auth: SpaceAuth, asOf: AsOf): Promise<PastPoint> {
  const parsed = parseAsOf(asOf.value);
  // The shared schemas refuse what does not parse before a read is called.
  if (!parsed) throw new TypeError(`unparsed asOf reached a read: ${asOf.value}`);
  const seq = await deps.past.seqOf(auth, parsed, asOf.field);
  return { seq, at: 'at' in parsed ? parsed.at : undefined };
}

/** The seq to read at, or undefined for the present. */
const seqOf = async (deps: ReadsDeps, auth: SpaceAuth, asOf: AsOf | undefined) =>
  asOf && (await pointOf(deps, auth, asOf)).seq;

/** The reads that take `asOf`: each a method of the graph (now) and of history's past (at a seq). */
type Present = ReadsDeps['graph'];
type ArgsOf<K extends keyof Present> = Present[K] extends (
  auth: SpaceAuth,
  ...args: infer A
) => unknown
  ? A
  : never;
type AnswerOf<K extends keyof Present> = Awaited<ReturnType<Present[K]>>;

/** Reads `name` now, or as of `asOf`: history's method of that name takes the seq after the rest. */
async function readAt<K extends keyof Present>(
  deps: ReadsDeps,
  auth: SpaceAuth,
  asOf: AsOf | undefined,
  name: K,
  ...args: ArgsOf<K>
): Promise<AnswerOf<K>> {
  type Read = (auth: SpaceAuth, ...rest: unknown[]) => Promise<AnswerOf<K>>;
  const seq = await seqOf(deps, auth, asOf);
  return seq === undefined
    ? (deps.graph[name] as Read)(auth, ...args)
    : (deps.past[name] as Read)(auth, ...args, seq);
}

/**
 * Recall's candidates at a past point (`pointOf`): the observations then that
 * share the question's words. Recall ranks the present itself.
 */
export async function recallAt(
  deps: ReadsDeps,
  auth: SpaceAuth,
  question: RecallQuestion,
  point: PastPoint,
): Promise<RecallAnswer> {
  return deps.past.recall(auth, question, point.seq);
}

type GraphAround = { depth: number; limit: number };

/** Each read that takes `asOf` is `readAt` with the graph's method of its name. */
export function createReadsService(deps: ReadsDeps) {
  return {
    ...bindService(deps, { pointOf, recallAt }),
    getEntity: (auth: SpaceAuth, id: string, asOf?: AsOf) =>
      readAt(deps, auth, asOf, 'getEntity', id),
    listEntities: (auth: SpaceAuth, filter: EntityFilter, asOf?: AsOf) =>
      readAt(deps, auth, asOf, 'listEntities', filter),
    listRelations: (auth: SpaceAuth, filter: RelationFilter, asOf?: AsOf) =>
      readAt(deps, auth, asOf, 'listRelations', filter),
    /** The graph for drawing: around `rootEntityId` when given, else the best-connected entities. */
    graphData: (auth: SpaceAuth, options: GraphWalk, asOf?: AsOf) =>
      readAt(deps, auth, asOf, 'graphData', options),
    graphAround: (auth: SpaceAuth, id: string, options: GraphAround, asOf?: AsOf) =>
      readAt(deps, auth, asOf, 'graphAround', id, options),
    // `page` is filled here: the past's read takes the seq after it.
    readGraph: (auth: SpaceAuth, page: Page = {}, asOf?: AsOf) =>
      readAt(deps, auth, asOf, 'readGraph', page),
    searchNodes: (auth: SpaceAuth, query: string, page: Page = {}, asOf?: AsOf) =>
      readAt(deps, auth, asOf, 'searchNodes', query, page),
    openNodes: (auth: SpaceAuth, names: string[], asOf?: AsOf) =>
      readAt(deps, auth, asOf, 'openNodes', names),
  };
}

export type ReadsService = ReturnType<typeof createReadsService>;
