import { describe, expect, it } from 'vitest';
import { nodeLabel } from '@/components/graph-canvas';
import { fallbackGraph } from './entity-graph';

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
