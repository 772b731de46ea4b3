import type { EntityVersion, HistoryChange, RelationVersion } from '@engram/shared';
import { describe, expect, it } from 'vitest';
import {
  actorLabel,
  authorLines,
  changesInCall,
  describeChange,
  diffLines,
  timeAgo,
  validityLabel,
} from './history-model';

const ALICE: EntityVersion = {
  kind: 'entity',
  id: 'e-alice',
  name: 'Alice',
  type: 'person',
  metadata: {},
  aliases: [],
  observations: [],
};

const obs = (id: string, content: string, validFrom: string | null = null) => ({
  id,
  content,
  metadata: null,
  validFrom,
  validTo: null,
});

const KNOWS: RelationVersion = {
  kind: 'relation',
  id: 'r1',
  fromEntityId: 'e-alice',
  toEntityId: 'e-bob',
  fromEntityName: 'Alice',
  toEntityName: 'Bob',
  relationType: 'knows',
  validFrom: null,
  validTo: null,
};

function change(partial: Partial<HistoryChange>): HistoryChange {
  return {
    seq: 1,
    callSeq: 1,
    type: 'entity_updated',
    at: '2026-11-20T10:00:00.000Z',
    actor: { kind: 'user', id: 'u1', name: 'Ada', user: { id: 'u1', name: 'Ada' } },
    space: 'default',
    before: null,
    after: null,
    ...partial,
  };
}

describe('describeChange', () => {
  it('says what an entity change did', () => {
    expect(describeChange(change({ type: 'entity_created', after: ALICE }), 'e-alice')).toBe(
      'Created',
    );
    expect(
      describeChange(
        change({
          type: 'entity_created',
          after: { ...ALICE, observations: [obs('o1', 'a'), obs('o2', 'b')] },
        }),
        'e-alice',
      ),
    ).toBe('Created with 2 observations');
    expect(describeChange(change({ before: ALICE, after: { ...ALICE, name: 'Alicia' } }))).toBe(
      'Renamed Alice → Alicia',
    );
    expect(
      describeChange(change({ type: 'entity_deleted', before: ALICE, after: null }), 'e-alice'),
    ).toBe('Deleted');
    expect(
      describeChange(
        change({
          type: 'observation_added',
          before: ALICE,
          after: { ...ALICE, observations: [obs('o1', 'a'), obs('o2', 'b')] },
        }),
      ),
    ).toBe('Added 2 observations');
    expect(
      describeChange(
        change({ before: { ...ALICE, observations: [obs('o1', 'a')] }, after: ALICE }),
      ),
    ).toBe('Removed observation');
    expect(
      describeChange(
        change({ before: ALICE, after: { ...ALICE, type: 'organization', metadata: { a: 1 } } }),
      ),
    ).toBe('Type Person → Organization, metadata changed');
  });

  it('says a relation change from the side of the entity whose history it is', () => {
    const created = change({ type: 'relation_created', after: KNOWS });
    expect(describeChange(created, 'e-alice')).toBe('Related to Bob (Knows)');
    expect(describeChange(created, 'e-bob')).toBe('Related from Alice (Knows)');
    expect(describeChange(change({ type: 'relation_deleted', before: KNOWS }), 'e-alice')).toBe(
      'Relation to Bob removed (Knows)',
    );
  });
});

describe('a merge in history', () => {
  // History's entity images carry aliases once the server sends them (a merge's sources' names).
  const withAliases = (aliases: string[], name = 'Alice') =>
    ({ ...ALICE, name, aliases }) as EntityVersion;

  it('names the entities merged in, from the aliases the merge added', () => {
    const merged = change({
      type: 'entity_merged',
      before: withAliases(['Al']),
      after: withAliases(['Al', 'A. Smith', 'alice']),
    });
    expect(describeChange(merged, 'e-alice')).toBe('Merged A. Smith and alice');
    expect(describeChange(merged)).toBe('Merged A. Smith and alice into Alice');
    expect(describeChange(merged, 'e-other')).toBe('Merged into Alice');
    expect(diffLines(merged)).toEqual([
      { kind: 'added', text: 'A. Smith', note: 'alias' },
      { kind: 'added', text: 'alice', note: 'alias' },
    ]);
  });

  it('says Merged when history does not say which, and a rename the merge made', () => {
    expect(describeChange(change({ type: 'entity_merged', before: ALICE, after: ALICE }))).toBe(
      'Merged into Alice',
    );
    expect(
      describeChange(change({ type: 'entity_merged', before: ALICE, after: ALICE }), 'e-alice'),
    ).toBe('Merged');
    // Renamed by the merge: the old name becomes an alias, and is no source.
    const renamed = change({
      type: 'entity_merged',
      before: withAliases([]),
      after: withAliases(['Alice', 'alice s.'], 'Alice Smith'),
    });
    expect(describeChange(renamed, 'e-alice')).toBe('Merged alice s., renamed Alice → Alice Smith');
  });

  it('words aliases given or taken away on an update', () => {
    expect(
      describeChange(change({ before: withAliases(['Al']), after: withAliases(['Ally']) })),
    ).toBe('Added alias Ally, removed alias Al');
  });
});

describe('diffLines', () => {
  it('lists fields before → after and observations added and removed', () => {
    const lines = diffLines(
      change({
        before: {
          ...ALICE,
          metadata: { role: 'dev', team: 'a' },
          observations: [obs('o1', 'old')],
        },
        after: {
          ...ALICE,
          name: 'Alicia',
          metadata: { role: 'lead', city: 'Paris' },
          observations: [obs('o2', 'new', '2024-01')],
        },
      }),
    );
    expect(lines).toEqual([
      { kind: 'field', label: 'Name', before: 'Alice', after: 'Alicia' },
      { kind: 'added', text: 'city: Paris', note: 'metadata' },
      { kind: 'field', label: 'role', before: 'dev', after: 'lead' },
      { kind: 'removed', text: 'team: a', note: 'metadata' },
      { kind: 'added', text: 'new', note: 'valid from Jan 2024' },
      { kind: 'removed', text: 'old', note: null },
    ]);
  });

  it('shows a relation added, removed or changed', () => {
    expect(diffLines(change({ type: 'relation_created', after: KNOWS }))).toEqual([
      { kind: 'added', text: 'Alice → Bob · Knows', note: null },
    ]);
    expect(diffLines(change({ type: 'relation_deleted', before: KNOWS }))).toEqual([
      { kind: 'removed', text: 'Alice → Bob · Knows', note: null },
    ]);
    expect(
      diffLines(
        change({
          type: 'relation_updated',
          before: KNOWS,
          after: { ...KNOWS, relationType: 'works_with', validTo: '2025-03-01' },
        }),
      ),
    ).toEqual([
      { kind: 'field', label: 'Type', before: 'Knows', after: 'Works with' },
      { kind: 'field', label: 'Valid', before: 'not said', after: 'valid until Mar 1, 2025' },
    ]);
  });

  it('does not list the observations a deleted entity took with it', () => {
    const before = { ...ALICE, observations: [obs('o1', 'a')] };
    expect(diffLines(change({ type: 'entity_deleted', before, after: null }))).toEqual([]);
  });
});

describe('labels', () => {
  it('names the actor, or the kind of caller when the name is gone', () => {
    expect(actorLabel({ kind: 'user', id: 'u', name: 'Ada', user: null })).toBe('Ada');
    expect(actorLabel({ kind: 'user', id: 'u', name: null, user: null })).toBe('Person');
    expect(actorLabel({ kind: 'api_key', id: 'k', name: null, user: null })).toBe('API key');
    expect(actorLabel({ kind: 'api_key', id: 'k', name: 'ci-agent', user: null })).toBe('ci-agent');
    expect(actorLabel({ kind: 'oauth', id: 'c', name: null, user: null })).toBe('Connected app');
    expect(actorLabel(null)).toBe('Engram');
  });

  it('names the person behind a key or an app, beside the credential', () => {
    const ada = { id: 'u', name: 'Ada Lovelace' };
    expect(actorLabel({ kind: 'user', id: 'u', name: 'Ada Lovelace', user: ada })).toBe(
      'Ada Lovelace',
    );
    expect(actorLabel({ kind: 'api_key', id: 'k', name: 'ci-agent', user: ada })).toBe(
      'Ada Lovelace via key ‘ci-agent’',
    );
    expect(actorLabel({ kind: 'api_key', id: 'k', name: null, user: ada })).toBe(
      'Ada Lovelace via an API key',
    );
    expect(actorLabel({ kind: 'oauth', id: 'c', name: 'Claude', user: ada })).toBe(
      'Ada Lovelace via Claude',
    );
    expect(actorLabel({ kind: 'oauth', id: 'c', name: null, user: ada })).toBe(
      'Ada Lovelace via a connected app',
    );
  });

  it('says who created and last changed an entity only when history still says', () => {
    const ada = { id: 'u1', name: 'Ada Lovelace' };
    const grace = { id: 'u2', name: 'Grace Hopper' };
    expect(
      authorLines({
        createdBy: ada,
        createdAt: '2026-11-01T10:00:00.000Z',
        updatedBy: grace,
        updatedAt: '2026-11-02T10:00:00.000Z',
      }),
    ).toEqual([
      { kind: 'created', text: 'Created by Ada Lovelace', at: '2026-11-01T10:00:00.000Z' },
      { kind: 'changed', text: 'Last changed by Grace Hopper', at: '2026-11-02T10:00:00.000Z' },
    ]);
    // Compacted past the history window, or a person unknown or gone: that line is left out.
    expect(
      authorLines({
        createdBy: null,
        createdAt: null,
        updatedBy: grace,
        updatedAt: '2026-11-02T10:00:00.000Z',
      }).map((line) => line.text),
    ).toEqual(['Last changed by Grace Hopper']);
    expect(
      authorLines({
        createdBy: null,
        createdAt: '2026-11-01T10:00:00.000Z',
        updatedBy: null,
        updatedAt: null,
      }),
    ).toEqual([]);
  });

  it('says when, relative to now', () => {
    const now = new Date('2026-11-20T12:00:00Z');
    expect(timeAgo('2026-11-20T11:59:30Z', now)).toBe('just now');
    expect(timeAgo('2026-11-20T11:55:00Z', now)).toBe('5 minutes ago');
    expect(timeAgo('2026-11-19T11:00:00Z', now)).toBe('yesterday');
    expect(timeAgo('2026-09-01T11:00:00Z', now)).toBe('Sep 1, 2026');
  });

  it('says when a fact held', () => {
    expect(validityLabel({})).toBeNull();
    expect(validityLabel({ validFrom: '2024-01', validTo: '2025-03' })).toBe(
      'valid Jan 2024 → Mar 2025',
    );
    expect(validityLabel({ validFrom: null, validTo: '2025-03' })).toBe('valid until Mar 2025');
    expect(validityLabel({ validFrom: '2024-01-31T00:00:00.000Z' })).toBe(
      'valid from Jan 31, 2024',
    );
  });

  it('counts the changes of one call', () => {
    const changes = [change({ seq: 3, callSeq: 2 }), change({ seq: 2, callSeq: 2 }), change({})];
    expect(changesInCall(changes, 2)).toBe(2);
    expect(changesInCall(changes, 1)).toBe(1);
  });
});
