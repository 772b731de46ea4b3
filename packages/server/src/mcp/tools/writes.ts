import type { ToolContext, ToolHandlers } from './context.js';
import { asText, result, toMcpEntity } from './answers.js';

/** The tools that add, change and delete entities, observations and relations. */
export function writeTools({
  graph,
  auth,
  deps,
  run,
}: ToolContext): Pick<
  ToolHandlers,
  | 'create_entities'
  | 'create_relations'
  | 'add_observations'
  | 'delete_entities'
  | 'delete_observations'
  | 'delete_relations'
  | 'update_entity'
> {
  return {
    create_entities: ({ entities }) =>
      run({ type: 'create', resource: 'entity' }, async () => {
        const given = entities.map(({ entityType, ...entity }) => ({
          ...entity,
          type: entityType,
        }));
        const { created, possibleDuplicates: likely } = await graph.createEntitiesNamingDuplicates(
          auth,
          given,
          { existing: 'skip' },
          (error) => deps.log?.warn({ err: error }, 'likely duplicates lookup failed'),
        );
        const answer = { entities: created.map(toMcpEntity) };
        const possibleDuplicates = likely.map(({ of, other, score }) => ({
          name: of.name,
          duplicateOf: other.name,
          score,
        }));
        const line = `Possible duplicates: ${possibleDuplicates
          .map((item) => `"${item.name}" may be "${item.duplicateOf}" (${item.score.toFixed(2)})`)
          .join('; ')}. Merge with merge_entities or rename.`;
        const structured = { ...answer, possibleDuplicates };
        return result(
          structured,
          possibleDuplicates.length > 0 ? `${asText(structured)}\n\n${line}` : asText(structured),
        );
      }),
    create_relations: ({ relations }) =>
      run({ type: 'create', resource: 'relation' }, async () =>
        result({ relations: await graph.createRelationsByName(auth, relations) }),
      ),
    add_observations: ({ observations }) =>
      run({ type: 'create', resource: 'observation' }, async () =>
        result({ results: await graph.addObservationsByName(auth, observations) }),
      ),
    delete_entities: ({ entityNames }) =>
      run({ type: 'delete', resource: 'entity' }, async () => {
        await graph.deleteEntitiesByName(auth, entityNames);
        const message = 'Entities deleted successfully';
        return result({ success: true, message }, message);
      }),
    delete_observations: ({ deletions }) =>
      run({ type: 'delete', resource: 'observation' }, async () => {
        await graph.deleteObservationsByName(auth, deletions);
        const message = 'Observations deleted successfully';
        return result({ success: true, message }, message);
      }),
    delete_relations: ({ relations }) =>
      run({ type: 'delete', resource: 'relation' }, async () => {
        await graph.deleteRelationsByName(auth, relations);
        const message = 'Relations deleted successfully';
        return result({ success: true, message }, message);
      }),
    update_entity: ({ name, newName, entityType, metadata }) =>
      run({ type: 'update', resource: 'entity' }, async () => {
        const change = { name: newName, type: entityType, metadata };
        const entity = await graph.updateEntity(auth, { name }, change);
        return result({ entity: { ...toMcpEntity(entity), metadata: entity.metadata } });
      }),
  };
}
