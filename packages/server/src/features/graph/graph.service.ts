import type { SpaceAuth } from '../../lib/auth-context.js';
import { bindService } from '../feature.js';
import * as entities from './entities.service.js';
import { entityNameOf } from './names.js';
import type { ExistingName, NewEntityInput } from './entities.service.js';
import * as reads from './graph-reads.service.js';
import type { GraphDeps } from './graph-deps.js';
import * as observations from './observations.service.js';
import { write, type CallOptions, type WriteScope } from './write.js';
import * as relations from './relations.service.js';
import * as types from './types.service.js';

export type { GraphDeps } from './graph-deps.js';
export type { ReadBounds } from './read-bounds.js';
export type { EntityFilter, ExistingName, NewEntityInput } from './entities.service.js';
export type { EntityRef } from './names.js';
export type { MemoryGraph } from './memory-graph.js';

/**
 * The graph feature's service: a space's graph — its reads and writes — as
 * every adapter (REST routes, MCP tools) and the features after it call it.
 * One object holding its dependencies, its methods taking `(auth, …)` and addressing
 * entities by id or by name. A name-addressed call answers in the reference
 * MCP server's shapes, an id-addressed one in the REST wire shapes; which
 * existing names a create refuses is the caller's explicit choice
 * (`{ existing: 'reject' | 'skip' | 'merge' }`). Its reads answer the present;
 * the reads feature sends a read `asOf` a past point to history instead. The
 * database is not reachable through it.
 */
export function createGraphService(deps: GraphDeps) {
  let likely: LikelyDuplicatesPort | undefined;
  return {
    /** Runs a call through the write path (write.ts) for the features that own writes of their own: history, transfer, duplicates' merges. */
    write: <T>(auth: SpaceAuth, fn: (scope: WriteScope) => Promise<T>, call?: CallOptions) =>
      write(deps, auth, fn, call),
    /** How a create names its likely duplicates: consolidation attaches it, once. */
    attachLikelyDuplicates(port: LikelyDuplicatesPort) {
      if (likely) throw new Error('Likely duplicates are already attached to the graph');
      likely = port;
    },
    /**
     * `createEntities`, answering also the likely duplicates of the entities
     * it made (none when consolidation is not attached): existing entities,
     * and the earlier of two it made whose names are equal but for case,
     * spacing and punctuation. The lookup reads only what the duplicate
     * finder keeps and the entities' name keys, which this create does not
     * change before its commit, so it is sent beside the create, not after
     * it: on PGlite's one connection it would wait behind the write's
     * bookkeeping (bench/README.md). What it finds of the entities just made
     * (the create committed first) is left out. A failed lookup leaves the
     * list empty, never the create failed.
     */
    async createEntitiesNamingDuplicates(
      auth: SpaceAuth,
      given: NewEntityInput[],
      options: { existing: ExistingName },
      onLookupFailed: (error: unknown) => void,
    ) {
      // The names as the create stores them (trimmed), so that each hint finds its entity.
      const asStored = given.map((entity) => ({
        name: storedName(entity.name),
        type: entity.type,
      }));
      const lookup =
        likely && given.length > 0
          ? likely.likelyDuplicatesOf(auth, asStored).catch((error: unknown) => {
              onLookupFailed(error);
              return [];
            })
          : Promise.resolve([]);
      const created = await entities.createEntities(deps, auth, given, options);
      const byName = new Map(created.map((entity) => [entity.name, entity]));
      const ids = new Set(created.map((entity) => entity.id));
      const found = (await lookup).flatMap(({ of, other, score }) => {
        const entity = byName.get(of);
        return entity && !ids.has(other.id)
          ? [{ of: { id: entity.id, name: entity.name }, other, score }]
          : [];
      });
      const twins =
        likely?.twinsOf(created.map(({ id, name, type }) => ({ id, name, type }))) ?? [];
      // Each created entity's hints together, in the order they were given.
      const order = new Map(created.map((entity, index) => [entity.id, index]));
      const possibleDuplicates = [...found, ...twins].sort(
        (a, b) => order.get(a.of.id)! - order.get(b.of.id)! || b.score - a.score,
      );
      return { created, possibleDuplicates };
    },
    ...bindService(deps, {
      createEntities: entities.createEntities,
      getEntity: entities.getEntity,
      listEntities: entities.listEntities,
      updateEntity: entities.updateEntity,
      deleteEntity: entities.deleteEntity,
      deleteEntitiesByName: entities.deleteEntitiesByName,
      addObservations: observations.addObservations,
      addObservationsByName: observations.addObservationsByName,
      deleteObservationsByName: observations.deleteObservationsByName,
      createRelation: relations.createRelation,
      createRelationsByName: relations.createRelationsByName,
      updateRelation: relations.updateRelation,
      deleteRelation: relations.deleteRelation,
      deleteRelationsByName: relations.deleteRelationsByName,
      listRelations: relations.listRelations,
      listEntityTypes: types.listEntityTypes,
      listRelationTypes: types.listRelationTypes,
      listTypes: types.listTypes,
      readGraph: reads.readGraph,
      searchNodes: reads.searchNodes,
      openNodes: reads.openNodes,
      neighbours: reads.neighbours,
      shortestPath: reads.shortestPath,
      graphData: reads.graphData,
      graphAround: reads.graphAround,
      overview: reads.overview,
    }),
  };
}

export type GraphService = ReturnType<typeof createGraphService>;

/**
 * What consolidation tells a create's answer: each created entity's likely
 * duplicates. Attached by the duplicates feature, so the graph never imports
 * it (the arrows stay one-way).
 */
export interface LikelyDuplicatesPort {
  /** Existing entities each given name probably names too (`of`: the name as given). */
  likelyDuplicatesOf(
    auth: SpaceAuth,
    given: { name: string; type: string }[],
  ): Promise<{ of: string; other: EntityBrief; score: number }[]>;
  /** Entities of one create that name one thing: each later one with the first (`other`). */
  twinsOf(
    created: EntityBrief[],
  ): { of: { id: string; name: string }; other: EntityBrief; score: number }[];
}

type EntityBrief = { id: string; name: string; type: string };

/** A name as the create stores it, or as given when the create will refuse it. */
function storedName(name: string): string {
  try {
    return entityNameOf(name, 'name');
  } catch {
    return name;
  }
}
