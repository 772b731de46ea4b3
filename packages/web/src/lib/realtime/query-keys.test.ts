import type { GraphEventType } from '@engram/shared';
import { GRAPH_EVENT_TYPES } from '@engram/shared';
import { describe, expect, it } from 'vitest';
import type { GraphEvent } from './messages';
import { queryKeysForEvent } from './query-keys';

function event(type: GraphEventType, payload: Record<string, unknown> = {}): GraphEvent {
  return { id: 'e', type, seq: 1, payload, timestamp: '' };
}

describe('queryKeysForEvent', () => {
  it('refreshes the graph, dashboard and analytics on every event', () => {
    for (const type of GRAPH_EVENT_TYPES) {
      expect(queryKeysForEvent(event(type))).toEqual(
        expect.arrayContaining([['graph'], ['dashboard'], ['analytics']]),
      );
    }
  });

  it('refreshes entity lists on entity changes and relation lists on relation changes', () => {
    expect(queryKeysForEvent(event('entity_created', { entityId: 'a' }))).toContainEqual([
      'entities',
    ]);
    expect(queryKeysForEvent(event('relation_created'))).toContainEqual(['relations']);
    expect(queryKeysForEvent(event('relation_created'))).not.toContainEqual(['entities']);
  });

  it('refreshes only the entities an event names, or all entity details when it names none', () => {
    expect(queryKeysForEvent(event('observation_added', { entityId: 'a' }))).toContainEqual([
      'entity',
      'a',
    ]);
    const related = queryKeysForEvent(
      event('relation_created', { fromEntityId: 'a', toEntityId: 'b', relationType: 'uses' }),
    );
    expect(related).toEqual(
      expect.arrayContaining([
        ['entity', 'a'],
        ['entity', 'b'],
      ]),
    );
    expect(related).not.toContainEqual(['entity']);
    expect(queryKeysForEvent(event('relation_deleted', { relationId: 'r' }))).toContainEqual([
      'entity',
    ]);
    // A rename shows on its neighbours' pages; a deletion removes their relations.
    for (const type of ['entity_updated', 'entity_deleted'] as const) {
      expect(queryKeysForEvent(event(type, { entityId: 'a' }))).toEqual(
        expect.arrayContaining([['entity'], ['relations'], ['entities']]),
      );
    }
  });
});
