import type { McpEntity, McpRelation } from '@engram/shared';
import * as relationRepo from './relations.repository.js';
import type * as answersRepo from './answers.repository.js';
import type * as entityRepo from './entities.repository.js';
import type { GraphDeps } from './graph-deps.js';
import {
  boundEntities,
  fitBytes,
  observationRowsOf,
  type BoundedEntities,
  type SizedEntity,
  type SizedObservation,
} from './read-bounds.js';

/**
 * The graph as the reference MCP memory server answers it (entities by name
 * with their observations' texts, relations by their ends' names), cut to the
 * read limits with a note saying what was left out and how to get it.
 */
export interface MemoryGraph {
  entities: McpEntity[];
  relations: McpRelation[];
  /** Set when the read limits cut the answer: says what was left out and how to get it. */
  truncated?: string;
}

/** The graph with `note` first among the things it says were cut. */
export function withNote(graph: MemoryGraph, note: string): MemoryGraph {
  const rest = graph.truncated?.replace(/^truncated: /, '');
  return { ...graph, truncated: `truncated: ${note}${rest ? `; ${rest}` : ''}` };
}

/**
 * The entities that fit the read limits with their observations, and the
 * relations being read beside them (on PostgreSQL the two reads overlap on
 * two connections): for answers too big to gain from one statement (a page
 * of `read_graph`; decision 017).
 */
export async function toMemoryGraph(
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
export const answerBudget = (deps: GraphDeps) => ({
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
export function answerGraph(
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
