import { TYPE_PAGE_DEFAULT } from '@engram/shared';
import { asOfArgument } from '../../features/reads/index.js';
import type { ToolContext, ToolHandlers } from './context.js';
import { asText, graphResult, result } from './answers.js';

/** The tools that read the graph: whole, searched, by name, around an entity, between two. */
export function readTools({
  graph,
  deps,
  auth,
  run,
}: ToolContext): Pick<
  ToolHandlers,
  'read_graph' | 'search_nodes' | 'open_nodes' | 'get_neighbors' | 'find_path' | 'list_types'
> {
  return {
    read_graph: ({ asOf, ...page }) =>
      run({ type: 'query', resource: 'graph' }, async () => {
        return graphResult(await deps.reads.readGraph(auth, page, asOfArgument(asOf, 'asOf')));
      }),
    search_nodes: ({ query, asOf, ...page }) =>
      run({ type: 'query', resource: 'entity' }, async () => {
        return graphResult(
          await deps.reads.searchNodes(auth, query, page, asOfArgument(asOf, 'asOf')),
        );
      }),
    open_nodes: ({ names, asOf }) =>
      run({ type: 'query', resource: 'entity' }, async () => {
        return graphResult(await deps.reads.openNodes(auth, names, asOfArgument(asOf, 'asOf')));
      }),
    get_neighbors: ({ name: start, depth, limit }) =>
      run({ type: 'query', resource: 'graph' }, async () =>
        graphResult(
          await graph.neighbours(auth, {
            name: start,
            depth: depth ?? 1,
            limit: limit ?? 100,
          }),
        ),
      ),
    find_path: ({ from, to, maxDepth }) =>
      run({ type: 'query', resource: 'graph' }, async () => {
        const found = await graph.shortestPath(auth, { from, to, maxDepth: maxDepth ?? 6 });
        if (found.found) return result(found);
        const structured = { found: false, path: [], relations: [] };
        const text = asText(structured);
        return found.searchedAll
          ? result(structured, text)
          : result(
              structured,
              `${text}\n\n(truncated: no path found within the read limits; the search stopped before covering every entity within ${maxDepth ?? 6} hops)`,
            );
      }),
    list_types: ({ limit, cursor, prefix }) =>
      run({ type: 'query', resource: 'entity' }, async () => {
        const types = await graph.listTypes(auth, {
          limit: limit ?? TYPE_PAGE_DEFAULT,
          cursor,
          prefix,
        });
        const text = asText(types);
        return types.nextCursor
          ? result(
              types,
              `${text}\n\n(truncated: more types follow; call list_types with cursor "${types.nextCursor}" and the same prefix for the next page)`,
            )
          : result(types, text);
      }),
  };
}
