import { describe, expect, it } from 'vitest';
import {
  cutLabel,
  neighbourSet,
  nodeLabel,
  nodeRadius,
  toGraphView,
  typeCounts,
  type GraphEdgeView,
} from './graph-view';

const edge = (source: string, target: string): GraphEdgeView => ({
  id: `${source}-${target}`,
  source,
  target,
  relationType: 'relates_to',
});

describe('nodeRadius', () => {
  it('is 8 px without observations and never outside 8–20', () => {
    expect(nodeRadius(0)).toBe(8);
    expect(nodeRadius(-3)).toBe(8);
    expect(nodeRadius(Number.NaN)).toBe(8);
    expect(nodeRadius(36)).toBe(20);
    expect(nodeRadius(10_000)).toBe(20);
  });

  it('grows with the observation count', () => {
    const radii = [0, 1, 2, 4, 9, 16, 25].map(nodeRadius);
    for (let i = 1; i < radii.length; i++) expect(radii[i]).toBeGreaterThan(radii[i - 1]!);
    expect(nodeRadius(1)).toBeCloseTo(10);
  });
});

describe('labels', () => {
  it('cuts at 15 characters plus an ellipsis, leaving shorter names alone', () => {
    expect(nodeLabel({ name: 'Short name', type: 'person' })).toBe('Short name');
    expect(nodeLabel({ name: 'Exactly15 chars', type: 'person' })).toBe('Exactly15 chars');
    expect(nodeLabel({ name: 'Sixteen chars!!!', type: 'concept' })).toBe('Sixteen chars!!…');
  });

  it('cuts observation nodes at 30', () => {
    const text = 'The customer prefers email over phone calls';
    expect(nodeLabel({ name: text, type: 'observation' })).toBe('The customer prefers email ove…');
    expect(nodeLabel({ name: text.slice(0, 30), type: 'observation' })).toBe(text.slice(0, 30));
  });

  it('counts characters, not UTF-16 units', () => {
    expect(cutLabel('🙂'.repeat(16), 15)).toBe(`${'🙂'.repeat(15)}…`);
  });
});

describe('neighbourSet', () => {
  const edges = [edge('a', 'b'), edge('c', 'a'), edge('b', 'd'), edge('e', 'f')];

  it('holds the node and every node one relation away, both directions', () => {
    expect(neighbourSet('a', edges)).toEqual(new Set(['a', 'b', 'c']));
    expect(neighbourSet('b', edges)).toEqual(new Set(['a', 'b', 'd']));
  });

  it('holds only the node when nothing links to it', () => {
    expect(neighbourSet('z', edges)).toEqual(new Set(['z']));
  });
});

describe('toGraphView and typeCounts', () => {
  it('maps relations to edges, dropping any with an end outside the answer', () => {
    const view = toGraphView({
      entities: [
        { id: 'a', name: 'A', type: 'person', observationsCount: 1 },
        { id: 'b', name: 'B', type: 'company', observationsCount: 0 },
      ],
      relations: [
        {
          id: 'r1',
          fromEntityId: 'a',
          toEntityId: 'b',
          relationType: 'works_at',
          type: 'works_at',
        },
        { id: 'r2', fromEntityId: 'a', toEntityId: 'x', relationType: 'knows', type: 'knows' },
      ],
    });
    expect(view.edges).toEqual([{ id: 'r1', source: 'a', target: 'b', relationType: 'works_at' }]);
    expect(view.nodes.map((node) => node.id)).toEqual(['a', 'b']);
  });

  it('counts node types, most common first', () => {
    expect(
      typeCounts([{ type: 'person' }, { type: 'concept' }, { type: 'person' }, { type: 'event' }]),
    ).toEqual([
      { type: 'person', count: 2 },
      { type: 'concept', count: 1 },
      { type: 'event', count: 1 },
    ]);
  });
});
