import type { CallToolResult } from '@modelcontextprotocol/server';
import type { Entity } from '@engram/shared';
import type { MemoryGraph } from '../../features/graph/index.js';

/**
 * JSON as an agent reads it: compact, not indented as the reference server
 * does (decision 014): the same content in fewer tokens, bytes and CPU.
 */
export const asText = (value: unknown) => JSON.stringify(value);

export function result(structured: Record<string, unknown>, text?: string): CallToolResult {
  return {
    content: [{ type: 'text', text: text ?? asText(structured) }],
    structuredContent: structured,
  };
}

/**
 * A graph answer in the reference server's shape; when the read limits cut
 * it, the text ends with a line saying so (the structured content keeps the
 * reference shape).
 */
export function graphResult({ truncated, ...graph }: MemoryGraph): CallToolResult {
  const text = asText(graph);
  return result(graph, truncated ? `${text}\n\n(${truncated})` : text);
}

/** An entity as the reference server answers it: its name, type and observations' texts. */
export const toMcpEntity = (entity: Entity) => ({
  name: entity.name,
  entityType: entity.type,
  observations: entity.observations.map((observation) => observation.content),
});
