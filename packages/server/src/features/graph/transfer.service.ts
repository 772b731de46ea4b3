import { z } from 'zod';
import type { AuthContext } from '../../lib/auth-context.js';
import { AppError } from '../../lib/errors.js';
import { isUuid } from '../../lib/ids.js';
import * as entityRepo from './entities.repository.js';
import * as observationRepo from './observations.repository.js';
import * as relationRepo from './relations.repository.js';
import type { GraphDeps } from './graph.service.js';
import * as writes from './graph.writes.js';
import * as memory from './memory.service.js';

/**
 * Moving memory in and out: the reference MCP server's JSONL (one
 * `{"type":"entity"…}` or `{"type":"relation"…}` per line) and Engram's own
 * lossless JSON, which keeps ids, metadata and dates.
 */

const PAGE = 1_000;

const jsonlEntity = z.object({
  type: z.literal('entity'),
  name: z.string(),
  entityType: z.string(),
  observations: z.array(z.string()).default([]),
});
const jsonlRelation = z.object({
  type: z.literal('relation'),
  from: z.string(),
  to: z.string(),
  relationType: z.string(),
});
const jsonlLine = z.discriminatedUnion('type', [jsonlEntity, jsonlRelation]);

const losslessDocument = z.object({
  format: z.literal('engram'),
  version: z.literal(1),
  entities: z.array(
    z.object({
      id: z.string().refine(isUuid, 'must be a uuid'),
      name: z.string().trim().min(1),
      type: z.string().trim().min(1),
      metadata: z.record(z.string(), z.unknown()).default({}),
      createdAt: z.iso.datetime({ offset: true }),
      updatedAt: z.iso.datetime({ offset: true }),
      observations: z.array(
        z.object({
          id: z.string().refine(isUuid, 'must be a uuid'),
          content: z.string(),
          metadata: z.record(z.string(), z.unknown()).optional(),
          createdAt: z.iso.datetime({ offset: true }),
        }),
      ),
    }),
  ),
  relations: z.array(
    z.object({
      id: z.string().refine(isUuid, 'must be a uuid'),
      fromEntityId: z.string().refine(isUuid, 'must be a uuid'),
      toEntityId: z.string().refine(isUuid, 'must be a uuid'),
      type: z.string().trim().min(1),
      createdAt: z.iso.datetime({ offset: true }),
    }),
  ),
});
export type LosslessDocument = z.infer<typeof losslessDocument>;

export interface ImportSummary {
  entities: number;
  relations: number;
}

function invalid(where: string, error: z.ZodError): AppError {
  const issue = error.issues[0];
  const path = issue?.path.join('.') ?? '';
  return new AppError(
    400,
    'VALIDATION_ERROR',
    `${where}${path ? ` (${path})` : ''}: ${issue?.message}`,
  );
}

/** Imports the reference server's JSONL; existing names and triples are skipped. */
export async function importJsonl(
  deps: GraphDeps,
  auth: AuthContext,
  text: string,
): Promise<ImportSummary> {
  const entities: memory.MemoryEntity[] = [];
  const relations: memory.MemoryRelation[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new AppError(400, 'VALIDATION_ERROR', `Line ${index + 1}: not valid JSON`);
    }
    const parsed = jsonlLine.safeParse(value);
    if (!parsed.success) throw invalid(`Line ${index + 1}`, parsed.error);
    if (parsed.data.type === 'entity') entities.push(parsed.data);
    else relations.push(parsed.data);
  }
  let created = 0;
  for (let start = 0; start < entities.length; start += PAGE) {
    created += (await memory.createEntities(deps, auth, entities.slice(start, start + PAGE)))
      .length;
  }
  let linked = 0;
  for (let start = 0; start < relations.length; start += PAGE) {
    linked += (await memory.createRelations(deps, auth, relations.slice(start, start + PAGE)))
      .length;
  }
  return { entities: created, relations: linked };
}

/**
 * The whole graph a page of entities at a time, each with all its
 * observations and the relations that start at it: exports are complete, so
 * they do not go through the bounded reads that answer requests.
 */
async function* wholeGraph(deps: GraphDeps, auth: AuthContext) {
  for (let offset = 0; ; offset += PAGE) {
    const rows = await entityRepo.pageEntities(deps.db, auth.accountId, { limit: PAGE, offset });
    const ids = rows.map((row) => row.id);
    const observations = await observationRepo.listObservations(deps.db, auth.accountId, ids);
    const outgoing = relationRepo.named(
      await relationRepo.relationsTouching(deps.db, auth.accountId, ids, {
        fromOnly: true,
        limit: null,
      }),
      relationRepo.namesOf(rows),
    );
    yield { rows, observations, outgoing };
    if (rows.length < PAGE) break;
  }
}

/** Writes the account's graph as the reference server's JSONL, entities first. */
export async function* exportJsonl(deps: GraphDeps, auth: AuthContext): AsyncGenerator<string> {
  for await (const { rows, observations } of wholeGraph(deps, auth)) {
    for (const row of rows) {
      const entity = {
        type: 'entity',
        name: row.name,
        entityType: row.type,
        observations: observations
          .filter((observation) => observation.entity_id === row.id)
          .map((observation) => observation.content),
      };
      yield JSON.stringify(entity) + '\n';
    }
  }
  for await (const { outgoing } of wholeGraph(deps, auth)) {
    for (const relation of outgoing) {
      const line = {
        type: 'relation',
        from: relation.from_name,
        to: relation.to_name,
        relationType: relation.type,
      };
      yield JSON.stringify(line) + '\n';
    }
  }
}

/** Writes the account's graph losslessly: ids, metadata, observation metadata and dates. */
export async function* exportLossless(deps: GraphDeps, auth: AuthContext): AsyncGenerator<string> {
  yield `{"format":"engram","version":1,"exportedAt":${JSON.stringify(new Date().toISOString())},"entities":[`;
  const relations: LosslessDocument['relations'] = [];
  let first = true;
  for await (const { rows, observations, outgoing } of wholeGraph(deps, auth)) {
    for (const row of rows) {
      const entity = {
        id: row.id,
        name: row.name,
        type: row.type,
        metadata: row.metadata,
        createdAt: row.created_at.toISOString(),
        updatedAt: row.updated_at.toISOString(),
        observations: observations
          .filter((observation) => observation.entity_id === row.id)
          .map((observation) => ({
            id: observation.id,
            content: observation.content,
            ...(observation.metadata ? { metadata: observation.metadata } : {}),
            createdAt: observation.created_at.toISOString(),
          })),
      };
      yield (first ? '' : ',') + JSON.stringify(entity);
      first = false;
    }
    const full = await relationRepo.findRelationsByIds(
      deps.db,
      auth.accountId,
      outgoing.map((relation) => relation.id),
    );
    relations.push(
      ...full.map((relation) => ({
        id: relation.id,
        fromEntityId: relation.from_id,
        toEntityId: relation.to_id,
        type: relation.type,
        createdAt: relation.created_at.toISOString(),
      })),
    );
  }
  yield `],"relations":${JSON.stringify(relations)}}\n`;
}

/**
 * Imports a lossless export. Entities whose id or name the account already
 * has are skipped with their observations; relations need both ends present.
 */
export async function importLossless(
  deps: GraphDeps,
  auth: AuthContext,
  value: unknown,
): Promise<ImportSummary> {
  const parsed = losslessDocument.safeParse(value);
  if (!parsed.success) throw invalid('Engram export', parsed.error);
  const document = parsed.data;
  return writes.write(deps, auth, async (scope) => {
    const created = await writes.createEntities(scope, document.entities);
    const present = new Set(
      (
        await entityRepo.findEntitiesByIds(scope.trx, auth.accountId, [
          ...new Set(
            document.relations.flatMap((relation) => [relation.fromEntityId, relation.toEntityId]),
          ),
        ])
      ).map((row) => row.id),
    );
    const linked = await writes.createRelations(
      scope,
      document.relations
        .filter(
          (relation) =>
            relation.fromEntityId !== relation.toEntityId &&
            present.has(relation.fromEntityId) &&
            present.has(relation.toEntityId),
        )
        .map((relation) => ({
          id: relation.id,
          fromId: relation.fromEntityId,
          toId: relation.toEntityId,
          type: relation.type,
          createdAt: relation.createdAt,
        })),
    );
    return { entities: created.length, relations: linked.length };
  });
}
