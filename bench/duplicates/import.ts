import type { EvalSet } from './generate.js';
import type { Api } from '../recall/server.js';

/**
 * The set as an agent imports it over MCP: `batch` entities a
 * `create_entities` call, then `batch` relations a `create_relations` call.
 * Answers how many entities were created.
 */
export async function importSet(api: Api, set: EvalSet, batch: number): Promise<number> {
  let created = 0;
  for (let at = 0; at < set.entities.length; at += batch) {
    const entities = set.entities
      .slice(at, at + batch)
      .map(({ name, type, observations }) => ({ name, entityType: type, observations }));
    const answer = await api.tool('create_entities', { entities });
    created += (answer.entities as unknown[] | undefined)?.length ?? 0;
  }
  for (let at = 0; at < set.relations.length; at += batch) {
    const relations = set.relations
      .slice(at, at + batch)
      .map(({ from, to, type }) => ({ from, to, relationType: type }));
    await api.tool('create_relations', { relations });
  }
  return created;
}
