/**
 * Engram's memory as OpenAI Agents SDK tools (`@openai/agents`):
 *
 * ```ts
 * import { Agent, run } from '@openai/agents';
 * import { engramTools } from '@engram/client/openai-agents';
 *
 * const agent = new Agent({ name: 'Assistant', instructions, tools: engramTools(engram) });
 * const result = await run(agent, 'Remember that I prefer tea.');
 * ```
 */
import { tool, type FunctionTool, type ToolOptions } from '@openai/agents';
import type { Engram } from '../client.js';
import { runEngramTool, selectEngramTools, type EngramToolsOptions } from './definitions.js';

export type { EngramToolName, EngramToolsOptions } from './definitions.js';

/**
 * Engram's tools (`remember`, `recall`, `forget`, `search_nodes`,
 * `open_nodes`, `create_relations`, `delete_relations`, `get_neighbors`,
 * `get_context`) acting through `client`: its space and credential. Not
 * strict: optional arguments stay optional. A failed call is told to the
 * model as the tool's output (the SDK's default), so it can correct itself.
 */
export function engramTools(client: Engram, options: EngramToolsOptions = {}): FunctionTool[] {
  return selectEngramTools(options).map((definition) => {
    // Not strict: the SDK's type for such a schema allows other properties (they are ignored).
    const parameters = { ...definition.parameters, additionalProperties: true } as const;
    const toolOptions: ToolOptions<typeof parameters> = {
      name: definition.name,
      description: definition.description,
      parameters,
      strict: false,
      execute: (args: unknown) => runEngramTool(definition, client, args, options),
    };
    return tool(toolOptions) as unknown as FunctionTool;
  });
}
