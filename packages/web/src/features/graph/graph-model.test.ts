import { describe, expect, it } from 'vitest';
import {
  cutLabel,
  fallbackGraph,
  graphParamNotices,
  graphSearch,
  neighbourSet,
  nodeLabel,
  nodeRadius,
  parseGraphParams,
  toGraphView,
  typeCounts,
  type GraphEdgeView,
} from './graph-model';

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

describe('fallbackGraph', () => {
  const observations = Array.from({ length: 12 }, (_, i) => ({
    id: `o${i}`,
    content: `Observation number ${i} with quite a long text to cut`,
    createdAt: '2027-01-05T10:00:00.000Z',
  }));
  const entity = {
    id: 'e1',
    name: 'Ada Lovelace',
    type: 'person',
    observationsCount: 12,
    observations,
  };

  it('is the entity plus its first 10 observations, linked by contains', () => {
    const graph = fallbackGraph(entity);
    expect(graph.nodes).toHaveLength(11);
    expect(graph.nodes[0]).toEqual({
      id: 'e1',
      name: 'Ada Lovelace',
      type: 'person',
      observationsCount: 12,
    });
    expect(graph.nodes.slice(1).map((node) => node.name)).toEqual(
      observations.slice(0, 10).map((observation) => observation.content),
    );
    expect(graph.nodes.slice(1).every((node) => node.type === 'observation')).toBe(true);
    expect(graph.edges).toHaveLength(10);
    for (const [i, graphEdge] of graph.edges.entries()) {
      expect(graphEdge.source).toBe('e1');
      expect(graphEdge.target).toBe(graph.nodes[i + 1]!.id);
      expect(graphEdge.relationType).toBe('contains');
    }
    // Observation labels are cut at 30.
    expect(nodeLabel(graph.nodes[1]!)).toBe('Observation number 0 with quit…');
  });

  it('is the entity alone without observations', () => {
    const graph = fallbackGraph({ ...entity, observations: [] });
    expect(graph.nodes).toHaveLength(1);
    expect(graph.edges).toHaveLength(0);
  });
});

describe('parseGraphParams', () => {
  const parse = (query: string) => parseGraphParams(new URLSearchParams(query));

  it('defaults to limit 250 and depth 2', () => {
    expect(parse('')).toEqual({ limit: 250, depth: 2 });
  });

  it('reads the offered values', () => {
    expect(parse('limit=100&depth=1')).toEqual({ limit: 100, depth: 1 });
    expect(parse('limit=500&depth=5')).toEqual({ limit: 500, depth: 5 });
  });

  it('falls back to the default for anything not offered', () => {
    for (const bad of ['abc', '0', '-100', '1000', '250.5', '2e2', ' 100', '', '99']) {
      expect(parse(`limit=${encodeURIComponent(bad)}`).limit, `limit=${bad}`).toBe(250);
    }
    for (const bad of ['0', '6', '-1', '2.5', 'two', '', '1e0']) {
      expect(parse(`depth=${encodeURIComponent(bad)}`).depth, `depth=${bad}`).toBe(2);
    }
    expect(parse('limit=7&depth=3')).toEqual({ limit: 250, depth: 3 });
  });

  it('writes limit and depth back, keeping other parameters', () => {
    const search = graphSearch({ limit: 500, depth: 4 }, new URLSearchParams('x=1&limit=100'));
    expect(search.toString()).toBe('x=1&limit=500&depth=4');
    expect(parseGraphParams(search)).toEqual({ limit: 500, depth: 4 });
  });
});

describe('graphParamNotices', () => {
  const notices = (query: string) => graphParamNotices(new URLSearchParams(query));

  it('says nothing for offered or absent values', () => {
    expect(notices('')).toEqual([]);
    expect(notices('limit=100&depth=5')).toEqual([]);
    expect(notices('limit=&depth=')).toEqual([]);
  });

  it('names a value not offered and the one used instead', () => {
    expect(notices('limit=99999')).toEqual([
      'Limit 99999 is not one of the options (100, 250, 500); showing 250.',
    ]);
    expect(notices('limit=1000&depth=0')).toEqual([
      'Limit 1000 is not one of the options (100, 250, 500); showing 250.',
      'Depth 0 is not one of the options (1, 2, 3, 4, 5); using 2.',
    ]);
    // The selectors' other value is kept.
    expect(notices('limit=abc&depth=4')).toEqual([
      'Limit abc is not one of the options (100, 250, 500); showing 250.',
    ]);
  });

  it('cuts a long value', () => {
    expect(notices(`limit=${'9'.repeat(40)}`)[0]).toBe(
      'Limit 999999999999… is not one of the options (100, 250, 500); showing 250.',
    );
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
