/**
 * Engram's memory as LangChain tools (`@langchain/core` 1.x), for LangGraph
 * agents and any chat model's `bindTools`:
 *
 * ```ts
 * import { engramTools } from '@engram/client/langchain';
 *
 * const tools = engramTools(engram);
 * const model = chatModel.bindTools(tools);
 * ```
 *
 * Each tool answers its result as JSON text (the tool message's content), the
 * parsed result as the message's `artifact`.
 */
import { tool, type DynamicStructuredTool } from '@langchain/core/tools';
import type { JsonSchema7Type } from '@langchain/core/utils/json_schema';
import type { Engram } from '../client.js';
import { runEngramTool, selectEngramTools, type EngramToolsOptions } from './definitions.js';

export type { EngramToolName, EngramToolsOptions } from './definitions.js';

/**
 * Engram's tools (`remember`, `recall`, `forget`, `search_nodes`,
 * `open_nodes`, `create_relations`, `delete_relations`, `get_neighbors`,
 * `get_context`) acting through `client`: its space and credential.
 */
export function engramTools(
  client: Engram,
  options: EngramToolsOptions = {},
): DynamicStructuredTool[] {
  return selectEngramTools(options).map(
    (definition) =>
      tool(
        async (args: unknown): Promise<[string, unknown]> => {
          const result = await runEngramTool(definition, client, args, options);
          return [JSON.stringify(result), result];
        },
        {
          name: definition.name,
          description: definition.description,
          schema: definition.parameters as JsonSchema7Type,
          responseFormat: 'content_and_artifact',
        },
      ) as unknown as DynamicStructuredTool,
  );
}
