import {
  typeLabel,
  TYPE_MAX,
  type TypeList,
  type TypeListQueryParsed,
  type TypeSummary,
} from '@engram/shared';
import { z } from 'zod';
import type { SpaceAuth } from '../../lib/auth-context.js';
import { decodeCursor, encodeCursor } from '../../lib/cursor.js';
import * as typesRepo from './types.repository.js';
import type { GraphDeps } from './graph-deps.js';

/** A type list's cursor: the last type of the page before, with its count. */
const typeKeyShape = z
  .tuple([
    z
      .number()
      .int()
      .min(1)
      .max(2 ** 31),
    z.string().min(1).max(TYPE_MAX),
  ])
  .transform(([count, type]): typesRepo.TypeKey => ({ count, type }));

const typeKeyOf = (row: typesRepo.TypeKey): [number, string] => [row.count, row.type];

type TypeListKind = 'entity' | 'relation';

const TYPE_TABLES = {
  entity: 'entity_type_counts',
  relation: 'relation_type_counts',
} as const;

/**
 * One page of the account's entity or relation types (issue 31, finding 4):
 * at most `limit` and READ_MAX_ROWS types, most common first then by name,
 * after `after`; `next` is where the following page starts (null at the end).
 */
async function typesPage(
  deps: GraphDeps,
  spaceId: string,
  kind: TypeListKind,
  page: { limit: number; after?: typesRepo.TypeKey | undefined; prefix?: string | undefined },
): Promise<{ types: TypeSummary[]; next: typesRepo.TypeKey | null }> {
  const limit = Math.min(page.limit, deps.bounds.maxRows);
  // One row past the page says whether another follows.
  const rows = await typesRepo.typeCountsPage(deps.db, TYPE_TABLES[kind], spaceId, {
    ...page,
    limit: limit + 1,
  });
  const kept = rows.slice(0, limit);
  return {
    types: kept.map(({ type, count }) => ({ type, label: typeLabel(type), count })),
    next: rows.length > limit ? kept[kept.length - 1]! : null,
  };
}

/** One REST type list: its page and the cursor of the next (400 naming `query.cursor` when forged). */
async function typeList(
  deps: GraphDeps,
  auth: SpaceAuth,
  kind: TypeListKind,
  query: TypeListQueryParsed,
): Promise<TypeList> {
  const { types, next } = await typesPage(deps, auth.space.id, kind, {
    limit: query.limit,
    // Named as the REST error handler names a query parameter ('query.limit').
    after:
      query.cursor === undefined
        ? undefined
        : decodeCursor(query.cursor, typeKeyShape, 'query.cursor'),
    prefix: query.prefix || undefined,
  });
  return { types, nextCursor: next ? encodeCursor(typeKeyOf(next)) : null };
}

export const listEntityTypes = (deps: GraphDeps, auth: SpaceAuth, query: TypeListQueryParsed) =>
  typeList(deps, auth, 'entity', query);

export const listRelationTypes = (deps: GraphDeps, auth: SpaceAuth, query: TypeListQueryParsed) =>
  typeList(deps, auth, 'relation', query);

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
  auth: SpaceAuth,
  query: { limit: number; cursor?: string | undefined; prefix?: string | undefined },
): Promise<{ entityTypes: TypeCount[]; relationTypes: TypeCount[]; nextCursor: string | null }> {
  const positions =
    query.cursor === undefined ? undefined : decodeCursor(query.cursor, typesCursorShape);
  const prefix = query.prefix || undefined;
  const page = async (kind: TypeListKind, index: 0 | 1) => {
    const after = positions?.[index];
    // A list the cursor says has ended answers nothing more.
    if (after === null) return { types: [], next: null };
    return typesPage(deps, auth.space.id, kind, { limit: query.limit, after, prefix });
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
