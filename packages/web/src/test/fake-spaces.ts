import type { Space } from '@engram/shared';
import type { FakeRequest } from './fake-server';

type Reply = { status: number; body?: unknown };

export function fakeSpace(slug: string, name: string, overrides: Partial<Space> = {}): Space {
  return {
    id: `space-${slug}`,
    slug,
    name,
    createdAt: '2027-01-05T10:00:00.000Z',
    counts: { entities: 0, relations: 0, observations: 0 },
    ...overrides,
  };
}

/**
 * Stands in for /api/spaces: lists by slug, filtered by `query` (slug or name
 * prefix, any case) and paged by `limit`/`cursor` as the server does; creates,
 * renames and deletes in memory. Spread `handlers` into `fakeServer`.
 */
export function fakeSpaces(initial: Space[]) {
  let spaces = [...initial];
  const sorted = () => [...spaces].sort((a, b) => a.slug.localeCompare(b.slug));
  const one = (slug: string) => spaces.find((space) => space.slug === slug);
  const notFound: Reply = { status: 404, body: { error: 'Space not found', code: 'NOT_FOUND' } };

  const handlers: Record<string, (request: FakeRequest) => Reply> = {
    'GET /api/spaces': ({ query }) => {
      const prefix = (query.get('query') ?? '').toLowerCase();
      const limit = Number(query.get('limit') ?? 100);
      const after = query.get('cursor');
      const matching = sorted().filter(
        (space) => space.slug.startsWith(prefix) || space.name.toLowerCase().startsWith(prefix),
      );
      const start = after ? matching.findIndex((space) => space.slug === after) + 1 : 0;
      const page = matching.slice(start, start + limit);
      const more = start + limit < matching.length;
      return {
        status: 200,
        body: { spaces: page, nextCursor: more ? (page.at(-1)?.slug ?? null) : null },
      };
    },
    'POST /api/spaces': ({ body }) => {
      const { name } = body as { name: string };
      const created = fakeSpace(name.toLowerCase().replace(/[^a-z0-9]+/g, '-'), name);
      spaces = [...spaces, created];
      return { status: 201, body: created };
    },
  };
  for (const space of initial) {
    const path = `/api/spaces/${space.slug}`;
    handlers[`GET ${path}`] = () => {
      const found = one(space.slug);
      return found ? { status: 200, body: found } : notFound;
    };
    handlers[`PATCH ${path}`] = ({ body }) => {
      const { name } = body as { name: string };
      spaces = spaces.map((s) => (s.slug === space.slug ? { ...s, name } : s));
      return { status: 200, body: one(space.slug) };
    };
    handlers[`DELETE ${path}`] = () => {
      spaces = spaces.filter((s) => s.slug !== space.slug);
      return { status: 200, body: { success: true } };
    };
  }
  return { handlers, list: () => sorted() };
}
