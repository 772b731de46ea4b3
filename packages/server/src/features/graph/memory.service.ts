import type { TypeSummary } from '@engram/shared';
import { z } from 'zod';
import type { Db } from '../../db/connection.js';
import type { AuthContext } from '../../lib/auth-context.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import { AppError, badRequest } from '../../lib/errors.js';
import * as entityRepo from './entities.repository.js';
import * as relationRepo from './relations.repository.js';
import * as searchRepo from './search.repository.js';
import * as answersRepo from './answers.repository.js';
import {
  boundEntities,
  fitBytes,
  observationRowsOf,
  type BoundedEntities,
  type GraphDeps,
  type SizedEntity,
  type SizedObservation,
  typeKeyOf,
  typeKeyShape,
  typesPage,
  type TypeListKind,
} from './graph.service.js';
import * as writes from './graph.writes.js';

/**
 * The graph by entity name, with the semantics of the reference MCP memory
 * server (@modelcontextprotocol/server-memory): existing names and triples are
 * skipped, deletes of missing things are no-ops, search matches name, type and
 * observations. Unlike the reference, every call is one transaction, and a
 * relation or observation naming a missing entity fails the whole call.
 * Writes only translate names to ids for the one write path (graph.writes).
 */

export interface MemoryEntity {
  name: string;
  entityType: string;
  observations: string[];
}

export interface MemoryRelation {
  from: string;
  to: string;
  relationType: string;
}

export interface MemoryGraph {
  entities: MemoryEntity[];
  relations: MemoryRelation[];
  /** Set when the read limits cut the answer: says what was left out and how to get it. */
  truncated?: string;
}

export interface Page {
  limit?: number | undefined;
  offset?: number | undefined;
}

function missingEntities(names: string[]): AppError {
  const list = names.map((name) => `"${name}"`).join(', ');
  return new AppError(
    404,
    'NOT_FOUND',
    `Entity not found: ${list}. Create ${names.length === 1 ? 'it' : 'them'} with create_entities first.`,
  );
}

/** Name → row for the given names; fails naming every missing one. */
async function requireByName(db: Db, accountId: string, names: string[]) {
  const unique = [...new Set(names)];
  const rows = await entityRepo.findEntityKeysByName(db, accountId, unique);
  const byName = new Map(rows.map((row) => [row.name, row]));
  const missing = unique.filter((name) => !byName.has(name));
  if (missing.length > 0) throw missingEntities(missing);
  return byName;
}

function checkName(name: string, field: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw badRequest(field, 'Names must not be blank');
  return trimmed;
}

/** The graph with `note` first among the things it says were cut. */
function withNote(graph: MemoryGraph, note: string): MemoryGraph {
  const rest = graph.truncated?.replace(/^truncated: /, '');
  return { ...graph, truncated: `truncated: ${note}${rest ? `; ${rest}` : ''}` };
}

/**
 * The entities that fit the read limits with their observations, and the
 * relations being read beside them (on PostgreSQL the two reads overlap on
 * two connections): for answers too big to gain from one statement (a page
 * of `read_graph`; decision 017).
 */
async function toMemoryGraph(
  deps: GraphDeps,
  accountId: string,
  given: entityRepo.EntityRow[],
  reading: Promise<relationRepo.NamedRelationRow[]>,
  more: (kept: number) => string,
): Promise<MemoryGraph> {
  const [bounded, relations] = await Promise.all([
    boundEntities(deps.db, accountId, given, deps.bounds),
    reading,
  ]);
  return shapeGraph(deps, bounded, relations, more);
}

/** What one answer of a read may hold (entities, observation rows, relations read). */
const answerBudget = (deps: GraphDeps) => ({
  entities: deps.bounds.maxRows,
  observationRows: observationRowsOf(deps.bounds),
  relations: deps.bounds.maxRows + 1,
});

/**
 * The answer of a read, read in one statement (answers.repository): the
 * entities that fit the read limits with their observations, and at most
 * `maxRows` of the relations read among what is kept. `more` describes how to
 * ask for what did not fit.
 */
function answerGraph(
  deps: GraphDeps,
  answer: answersRepo.AnswerRows,
  more: (kept: number) => string,
): MemoryGraph {
  const plan = answer.entities.flatMap((row) =>
    row.take === null ? [] : [{ row, take: row.take }],
  );
  const bounded = fitBytes(plan, answer.observations, answer.entities.length, deps.bounds);
  const relations = relationRepo.named(answer.relations, relationRepo.namesOf(answer.entities));
  return shapeGraph(deps, bounded, relations, more);
}

/** The entities kept, their observations, and the relations touching them that fit. */
function shapeGraph(
  deps: GraphDeps,
  bounded: BoundedEntities<SizedEntity, SizedObservation>,
  relations: relationRepo.NamedRelationRow[],
  more: (kept: number) => string,
): MemoryGraph {
  const kept = new Set(bounded.rows.map((row) => row.id));
  const shown = relations
    .filter((row) => kept.has(row.from_id) || kept.has(row.to_id))
    .slice(0, deps.bounds.maxRows);
  const notes: string[] = [];
  if (bounded.cut)
    notes.push(`showing ${bounded.rows.length} entities; ${more(bounded.rows.length)}`);
  const cutOf = bounded.observationsCutOf;
  if (cutOf) {
    const count = bounded.observations.get(cutOf.id)?.length ?? 0;
    notes.push(
      `the observations of "${cutOf.name}" are cut to ${count} of ${cutOf.observations_count} to fit the answer's size limit`,
    );
  }
  if (relations.length > deps.bounds.maxRows) {
    notes.push(
      `showing the first ${deps.bounds.maxRows} relations of these entities; ask for fewer entities to see the rest`,
    );
  }
  const graph: MemoryGraph = {
    entities: bounded.rows.map((row) => ({
      name: row.name,
      entityType: row.type,
      observations: (bounded.observations.get(row.id) ?? []).map((o) => o.content),
    })),
    relations: shown.map((row) => ({
      from: row.from_name,
      to: row.to_name,
      relationType: row.type,
    })),
  };
  return notes.length > 0 ? { ...graph, truncated: `truncated: ${notes.join('; ')}` } : graph;
}

// ── writes ──────────────────────────────────────────────────────────────────

/**
 * Creates the entities whose names are new and returns them; a name given
 * twice in one call becomes one entity with the observations of both.
 */
export async function createEntities(
  deps: GraphDeps,
  auth: AuthContext,
  entities: MemoryEntity[],
): Promise<MemoryEntity[]> {
  const given = entities.map((entity, index) => {
    const entityType = entity.entityType.trim();
    if (!entityType)
      throw badRequest(`entities.${index}.entityType`, 'entityType must not be blank');
    return {
      name: checkName(entity.name, `entities.${index}.name`),
      type: entityType,
      metadata: {},
      observations: entity.observations,
    };
  });
  if (given.length === 0) return [];
  const created = await writes.write(deps, auth, (scope) => writes.createEntities(scope, given));
  return created.map(({ row, observations }) => ({
    name: row.name,
    entityType: row.type,
    observations: observations.map((observation) => observation.content),
  }));
}

/** Creates the relations that are new and returns them; both ends must exist. */
export async function createRelations(
  deps: GraphDeps,
  auth: AuthContext,
  relations: MemoryRelation[],
): Promise<MemoryRelation[]> {
  const wanted = relations.map((relation, index) => {
    const from = checkName(relation.from, `relations.${index}.from`);
    const to = checkName(relation.to, `relations.${index}.to`);
    const relationType = relation.relationType.trim();
    if (!relationType) {
      throw badRequest(`relations.${index}.relationType`, 'relationType must not be blank');
    }
    if (from === to) {
      throw badRequest(`relations.${index}.to`, `A relation cannot connect "${from}" to itself`);
    }
    return { from, to, relationType };
  });
  if (wanted.length === 0) return [];

  return writes.write(deps, auth, async (scope) => {
    const byName = await requireByName(
      scope.trx,
      auth.accountId,
      wanted.flatMap((relation) => [relation.from, relation.to]),
    );
    const nameOf = new Map([...byName.values()].map((row) => [row.id, row.name]));
    const rows = await writes.createRelations(
      scope,
      wanted.map((relation) => ({
        fromId: byName.get(relation.from)!.id,
        toId: byName.get(relation.to)!.id,
        type: relation.relationType,
      })),
    );
    return rows.map((row) => ({
      from: nameOf.get(row.from_id)!,
      to: nameOf.get(row.to_id)!,
      relationType: row.type,
    }));
  });
}

/** Adds the contents each entity does not have yet; every named entity must exist. */
export async function addObservations(
  deps: GraphDeps,
  auth: AuthContext,
  additions: { entityName: string; contents: string[] }[],
): Promise<{ entityName: string; addedObservations: string[] }[]> {
  return writes.write(deps, auth, async (scope) => {
    const byName = await requireByName(
      scope.trx,
      auth.accountId,
      additions.map((addition) => addition.entityName),
    );
    const added = await writes.addObservations(
      scope,
      additions.map((addition, index) => ({
        entityId: byName.get(addition.entityName)!.id,
        observations: addition.contents,
        field: `observations.${index}.contents`,
      })),
    );
    // An entity named twice reports what it gained once, under its first mention.
    const reported = new Set<string>();
    return additions.map(({ entityName }) => {
      const id = byName.get(entityName)!.id;
      const gained = reported.has(id) ? [] : (added.get(id) ?? []);
      reported.add(id);
      return { entityName, addedObservations: gained.map((row) => row.content) };
    });
  });
}

/** Deletes the named entities with their observations and relations; unknown names are ignored. */
export async function deleteEntities(
  deps: GraphDeps,
  auth: AuthContext,
  names: string[],
): Promise<void> {
  await writes.write(deps, auth, async (scope) => {
    const rows = await entityRepo.findEntityKeysByName(scope.trx, auth.accountId, [
      ...new Set(names),
    ]);
    await writes.deleteEntities(
      scope,
      rows.map((row) => row.id),
    );
  });
}

/** Removes the given contents from each entity; unknown entities and contents are ignored. */
export async function deleteObservations(
  deps: GraphDeps,
  auth: AuthContext,
  deletions: { entityName: string; observations: string[] }[],
): Promise<void> {
  await writes.write(deps, auth, async (scope) => {
    const rows = await entityRepo.findEntityKeysByName(scope.trx, auth.accountId, [
      ...new Set(deletions.map((deletion) => deletion.entityName)),
    ]);
    const byName = new Map(rows.map((row) => [row.name, row]));
    await writes.deleteObservations(
      scope,
      deletions.flatMap((deletion) => {
        const entity = byName.get(deletion.entityName);
        return entity ? [{ entity, contents: deletion.observations }] : [];
      }),
    );
  });
}

/** Deletes the given relations; ones that do not exist are ignored. */
export async function deleteRelations(
  deps: GraphDeps,
  auth: AuthContext,
  relations: MemoryRelation[],
): Promise<void> {
  await writes.write(deps, auth, async (scope) => {
    const rows = await entityRepo.findEntityKeysByName(scope.trx, auth.accountId, [
      ...new Set(relations.flatMap((relation) => [relation.from, relation.to])),
    ]);
    const byName = new Map(rows.map((row) => [row.name, row]));
    const existing = await relationRepo.findRelationsByTriples(
      scope.trx,
      auth.accountId,
      relations.flatMap((relation) => {
        const from = byName.get(relation.from);
        const to = byName.get(relation.to);
        return from && to ? [{ fromId: from.id, toId: to.id, type: relation.relationType }] : [];
      }),
    );
    await writes.deleteRelations(
      scope,
      existing.map((row) => row.id),
    );
  });
}

/** Renames, retypes or replaces the metadata of one entity. */
export async function updateEntity(
  deps: GraphDeps,
  auth: AuthContext,
  change: {
    name: string;
    newName?: string | undefined;
    entityType?: string | undefined;
    metadata?: Record<string, unknown> | undefined;
  },
): Promise<MemoryEntity & { metadata: Record<string, unknown> }> {
  return writes.write(deps, auth, async (scope) => {
    const entity = (await requireByName(scope.trx, auth.accountId, [change.name])).get(
      change.name,
    )!;
    const row = await writes.updateEntity(scope, entity.id, {
      name: change.newName === undefined ? undefined : checkName(change.newName, 'newName'),
      type: change.entityType?.trim() || undefined,
      metadata: change.metadata,
    });
    const bounded = await boundEntities(scope.trx, auth.accountId, [row], deps.bounds);
    const graph = shapeGraph(deps, bounded, [], () => '');
    return { ...graph.entities[0]!, metadata: row.metadata };
  });
}

// ── reads ───────────────────────────────────────────────────────────────────

/**
 * The whole graph, or one page of entities in creation order with the
 * relations that start at them — paging through visits every relation once.
 * Without a limit as much as the read limits allow, saying where to go on.
 */
export async function readGraph(deps: GraphDeps, auth: AuthContext, page: Page = {}) {
  const offset = page.offset ?? 0;
  const limit = Math.min(page.limit ?? deps.bounds.maxRows, deps.bounds.maxRows);
  // One row past the page tells whether more follow.
  const rows = await entityRepo.pageEntities(deps.db, auth.accountId, { limit: limit + 1, offset });
  const onPage = rows.slice(0, limit);
  const relations = relationRepo
    .relationsTouching(
      deps.db,
      auth.accountId,
      onPage.map((row) => row.id),
      { fromOnly: true, limit: deps.bounds.maxRows + 1 },
    )
    .then((touching) => relationRepo.named(touching, relationRepo.namesOf(onPage)));
  const more = (kept: number) => `call read_graph with offset=${offset + kept} for the next page`;
  const graph = await toMemoryGraph(deps, auth.accountId, onPage, relations, more);
  // More entities follow a full page: a cut only when the caller asked for no limit.
  if (rows.length > limit && page.limit === undefined && graph.entities.length === limit) {
    return withNote(graph, `showing ${limit} entities; ${more(limit)}`);
  }
  return graph;
}

/**
 * Entities whose name, type or observations contain the query (any case),
 * best matches first, with every relation touching them.
 */
export async function searchNodes(
  deps: GraphDeps,
  auth: AuthContext,
  query: string,
  page: Page = {},
): Promise<MemoryGraph> {
  const offset = page.offset ?? 0;
  const limit = Math.min(page.limit ?? deps.bounds.maxRows, deps.bounds.maxRows);
  const answer = await searchRepo.searchAnswer(
    deps.db,
    auth.accountId,
    { query, limit, offset },
    answerBudget(deps),
  );
  const graph = answerGraph(
    deps,
    answer,
    (kept) => `call search_nodes with offset=${offset + kept} for the next ones`,
  );
  const shown = graph.entities.length;
  if (
    page.limit === undefined &&
    shown === answer.entities.length &&
    offset + shown < answer.total
  ) {
    return withNote(
      graph,
      `showing ${shown} of ${answer.total} matches; call search_nodes with offset=${offset + shown} for the next ones`,
    );
  }
  return graph;
}

/** The named entities (unknown names are skipped) with every relation touching them. */
export async function openNodes(
  deps: GraphDeps,
  auth: AuthContext,
  names: string[],
): Promise<MemoryGraph> {
  // One entity past the most an answer holds tells that names were left out.
  const answer = await answersRepo.namedAnswer(
    deps.db,
    auth.accountId,
    names,
    deps.bounds.maxRows + 1,
    answerBudget(deps),
  );
  return answerGraph(
    deps,
    answer,
    (kept) => `open the names after the first ${kept} found in another call`,
  );
}

/** The entity and everything within `depth` relations of it, either direction. */
export async function neighbours(
  deps: GraphDeps,
  auth: AuthContext,
  query: { name: string; depth: number; limit: number },
): Promise<MemoryGraph> {
  const answer = await answersRepo.neighbourhoodAnswer(
    deps.db,
    auth.accountId,
    query.name,
    { depth: query.depth, limit: query.limit },
    answerBudget(deps),
  );
  if (answer.entities.length === 0) throw missingEntities([query.name]);
  // Only the relations among the entities found.
  const found = new Set(answer.entities.map((row) => row.id));
  const relations = answer.relations.filter(
    (relation) => found.has(relation.from_id) && found.has(relation.to_id),
  );
  return answerGraph(deps, { ...answer, relations }, () => 'ask for a smaller depth or limit');
}

/**
 * A shortest chain of relations between two entities, following relations in
 * either direction, up to `maxDepth` hops. When there is none, says whether
 * the search covered every entity that near or stopped at the read limits.
 */
export async function shortestPath(
  deps: GraphDeps,
  auth: AuthContext,
  query: { from: string; to: string; maxDepth: number },
): Promise<
  | { found: true; path: string[]; relations: MemoryRelation[] }
  | { found: false; searchedAll: boolean }
> {
  const byName = await requireByName(deps.db, auth.accountId, [query.from, query.to]);
  const start = byName.get(query.from)!.id;
  const goal = byName.get(query.to)!.id;
  if (start === goal) return { found: true, path: [query.from], relations: [] };

  // Breadth-first, one indexed query per level, remembering how each entity was
  // reached. Each level reads at most the row budget; past it the search stops.
  const budget = observationRowsOf(deps.bounds);
  const cameFrom = new Map<string, relationRepo.NamedRelationRow | null>([[start, null]]);
  // Every entity reached is named by the relation that reached it.
  const names = new Map([
    [start, query.from],
    [goal, query.to],
  ]);
  let frontier = [start];
  let exhausted = false;
  for (let depth = 0; depth < query.maxDepth && frontier.length > 0; depth++) {
    const touching = await relationRepo.relationsTouching(deps.db, auth.accountId, frontier, {
      limit: budget + 1,
    });
    if (touching.length > budget) exhausted = true;
    for (const edge of touching) {
      if (edge.from_name !== null) names.set(edge.from_id, edge.from_name);
      if (edge.to_name !== null) names.set(edge.to_id, edge.to_name);
    }
    const edges = relationRepo.named(touching, names);
    const inFrontier = new Set(frontier);
    const next: string[] = [];
    for (const edge of edges) {
      for (const [here, there] of [
        [edge.from_id, edge.to_id],
        [edge.to_id, edge.from_id],
      ] as const) {
        if (!inFrontier.has(here) || cameFrom.has(there)) continue;
        cameFrom.set(there, edge);
        next.push(there);
      }
    }
    if (cameFrom.has(goal)) break;
    if (exhausted || cameFrom.size > budget) {
      exhausted = true;
      break;
    }
    frontier = next;
  }
  if (!cameFrom.has(goal)) return { found: false, searchedAll: !exhausted };

  const edges: relationRepo.NamedRelationRow[] = [];
  for (let at = goal; at !== start;) {
    const edge = cameFrom.get(at)!;
    edges.unshift(edge);
    at = edge.from_id === at ? edge.to_id : edge.from_id;
  }
  const path = [query.from];
  for (const edge of edges) {
    path.push(path[path.length - 1] === edge.from_name ? edge.to_name : edge.from_name);
  }
  return {
    found: true,
    path,
    relations: edges.map((edge) => ({
      from: edge.from_name,
      to: edge.to_name,
      relationType: edge.type,
    })),
  };
}

/**
 * list_types' cursor: where each of its two lists goes on, null for a list
 * that has ended (a call without a cursor starts both).
 */
const typesCursorShape = z.tuple([typeKeyShape.nullable(), typeKeyShape.nullable()]);

export interface TypeCount {
  type: string;
  count: number;
}

/**
 * The entity types and relation types in use, with counts, one page of each
 * (at most `limit` and READ_MAX_ROWS), most common first then by name;
 * `nextCursor` continues both lists (null once both have ended).
 */
export async function listTypes(
  deps: GraphDeps,
  auth: AuthContext,
  query: { limit: number; cursor?: string | undefined; prefix?: string | undefined },
): Promise<{ entityTypes: TypeCount[]; relationTypes: TypeCount[]; nextCursor: string | null }> {
  const positions =
    query.cursor === undefined ? undefined : decodeCursor(query.cursor, typesCursorShape);
  const prefix = query.prefix || undefined;
  const page = async (kind: TypeListKind, index: 0 | 1) => {
    const after = positions?.[index];
    // A list the cursor says has ended answers nothing more.
    if (after === null) return { types: [], next: null };
    return typesPage(deps, auth.accountId, kind, { limit: query.limit, after, prefix });
  };
  const [entities, relations] = await Promise.all([page('entity', 0), page('relation', 1)]);
  const counts = (types: TypeSummary[]) => types.map(({ type, count }) => ({ type, count }));
  return {
    entityTypes: counts(entities.types),
    relationTypes: counts(relations.types),
    nextCursor:
      entities.next || relations.next
        ? encodeCursor([
            entities.next && typeKeyOf(entities.next),
            relations.next && typeKeyOf(relations.next),
          ])
        : null,
  };
}
