import { GRAPH_EVENT_TYPES, type GraphChange } from '@engram/shared';
import { describe, expect, it } from 'vitest';
import type { GraphEvent } from './messages';
import { queryKeysForEvent } from './query-keys';

const entity = { entityId: 'a', id: 'a', name: 'A', type: 'person' };
const relation = {
  relationId: 'r',
  id: 'r',
  fromEntityId: 'a',
  toEntityId: 'b',
  relationType: 'uses',
};

/** An event of each type in the shared `graphChange` shape. */
function event(type: GraphChange['type']): GraphEvent {
  const payload = type.startsWith('relation_')
    ? relation
    : type === 'observation_added'
      ? { entityId: 'a', observations: [{ id: 'o', content: 'note' }] }
      : entity;
  return { id: 'e', type, seq: 1, payload, timestamp: '' } as GraphEvent;
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
    expect(queryKeysForEvent(event('entity_created'))).toContainEqual(['entities']);
    expect(queryKeysForEvent(event('relation_created'))).toContainEqual(['relations']);
    expect(queryKeysForEvent(event('relation_created'))).not.toContainEqual(['entities']);
  });

  it('refreshes only the entities an observation or relation names', () => {
    expect(queryKeysForEvent(event('observation_added'))).toContainEqual(['entity', 'a']);
    for (const type of ['relation_created', 'relation_updated', 'relation_deleted'] as const) {
      const keys = queryKeysForEvent(event(type));
      expect(keys).toEqual(
        expect.arrayContaining([
          ['entity', 'a'],
          ['entity', 'b'],
        ]),
      );
      expect(keys).not.toContainEqual(['entity']);
    }
  });

  it('refreshes every entity detail on a rename or a deletion', () => {
    // A rename shows on its neighbours' pages; a deletion removes their relations.
    for (const type of ['entity_updated', 'entity_deleted'] as const) {
      expect(queryKeysForEvent(event(type))).toEqual(
        expect.arrayContaining([['entity'], ['relations'], ['entities']]),
      );
    }
  });

  it('refreshes the lists, every entity detail and the relations on a merge', () => {
    // The sources are gone and their relations end at the target: neighbours' pages change too.
    const merged = {
      id: 'e',
      type: 'entity_merged',
      seq: 1,
      payload: { entityId: 'a', name: 'A', mergedIds: ['b', 'c'], mergedNames: ['B', 'C'] },
      timestamp: '',
    } as GraphEvent;
    expect(queryKeysForEvent(merged)).toEqual(
      expect.arrayContaining([['entities'], ['entity'], ['relations'], ['graph']]),
    );
  });
});
