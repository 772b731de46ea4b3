import type { QueryKey } from '@tanstack/react-query';
import type { GraphEvent } from './messages';

/**
 * Query-key prefixes that live updates refresh. Every screen that shows graph
 * data must put its TanStack Query keys under one of these, so a change made
 * anywhere (another tab, another person, an agent over MCP or REST) reloads
 * it while it is open. A prefix matches every key that starts with it:
 * `['entities']` refreshes `['entities', { search: 'a', type: 'person' }]`.
 *
 * | prefix               | for                                                      |
 * | -------------------- | -------------------------------------------------------- |
 * | `['entities']`       | entity lists, search results, type counts, duplicates    |
 * | `['entity', id]`     | one entity: detail, observations, relations, mini-graph  |
 * | `['relations']`      | relation lists and relation-type counts                  |
 * | `['graph']`          | graph data for the graph view                            |
 * | `['dashboard']`      | dashboard lists (recent entities, activity)              |
 * | `['analytics']`      | totals and usage (analytics summary, real-time stats)    |
 *
 * Only queries being shown refetch at once; the others are marked stale and
 * reload when next shown (TanStack's invalidateQueries default).
 *
 * Graph data belongs to a memory space: each key holds the space's slug right
 * after its prefix (`['entities', 'alpha', 'list', filter]`; after the id for
 * `['entity', id, 'alpha', …]`), so one space never shows another's cache,
 * while the prefixes, which name no space, still refresh every space's.
 */
export const liveQueryKeys = {
  entities: ['entities'] as const,
  /** Without an id: every entity's detail queries. */
  entity: (entityId?: string) =>
    entityId === undefined ? (['entity'] as const) : (['entity', entityId] as const),
  relations: ['relations'] as const,
  graph: ['graph'] as const,
  dashboard: ['dashboard'] as const,
  analytics: ['analytics'] as const,
};

/** Every live prefix: refreshed together when events may have been missed. */
export const ALL_LIVE_QUERY_KEYS: readonly QueryKey[] = [
  liveQueryKeys.entities,
  liveQueryKeys.entity(),
  liveQueryKeys.relations,
  liveQueryKeys.graph,
  liveQueryKeys.dashboard,
  liveQueryKeys.analytics,
];

/**
 * The prefixes one event makes stale. Totals, activity and the graph change
 * with every event. An observation or a relation refreshes the detail of the
 * entities it names; a rename shows on its neighbours' pages, a deletion
 * removes their relations and a merge re-points them, so those refresh every
 * entity detail.
 */
export function queryKeysForEvent(event: GraphEvent): QueryKey[] {
  const always: QueryKey[] = [
    liveQueryKeys.graph,
    liveQueryKeys.dashboard,
    liveQueryKeys.analytics,
  ];
  switch (event.type) {
    case 'entity_created':
      return [liveQueryKeys.entities, ...always];
    case 'observation_added':
      return [liveQueryKeys.entities, liveQueryKeys.entity(event.payload.entityId), ...always];
    case 'entity_updated':
    case 'entity_deleted':
      return [liveQueryKeys.entities, liveQueryKeys.entity(), liveQueryKeys.relations, ...always];
    case 'relation_created':
    case 'relation_updated':
    case 'relation_deleted':
      return [
        liveQueryKeys.relations,
        liveQueryKeys.entity(event.payload.fromEntityId),
        liveQueryKeys.entity(event.payload.toEntityId),
        ...always,
      ];
    case 'entity_merged':
      // The sources are gone and their relations now end at the target, so
      // the neighbours' pages name it instead: every entity detail (the
      // target's and each source's among them), like a deletion.
      return [liveQueryKeys.entities, liveQueryKeys.entity(), liveQueryKeys.relations, ...always];
  }
}
