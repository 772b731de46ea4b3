import { typeLabel, type TypeList } from '@engram/shared';
import type { FakeRequest } from './fake-server';

/**
 * Answers GET /api/{entities,relations}/types as Engram does, over `types`
 * (most common first): `prefix` in any case, pages of `limit` (100 by
 * default) by cursor. The fake's cursor is the offset of the next page.
 */
export function typePages(types: { type: string; count: number }[]) {
  return (request: FakeRequest): { status: number; body: TypeList } => {
    const prefix = (request.query.get('prefix') ?? '').toLowerCase();
    const limit = Number(request.query.get('limit') ?? 100);
    const from = Number(request.query.get('cursor') ?? 0);
    const matching = types.filter(({ type }) => type.toLowerCase().startsWith(prefix));
    const page = matching.slice(from, from + limit);
    return {
      status: 200,
      body: {
        types: page.map(({ type, count }) => ({ type, label: typeLabel(type), count })),
        nextCursor: from + limit < matching.length ? String(from + limit) : null,
      },
    };
  };
}
