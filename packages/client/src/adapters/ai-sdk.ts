/**
 * Engram's memory as Vercel AI SDK tools (`ai` 6):
 *
 * ```ts
 * import { generateText, stepCountIs } from 'ai';
 * import { engramTools } from '@engram/client/ai-sdk';
 *
 * const { text } = await generateText({ model, tools: engramTools(engram), stopWhen: stepCountIs(5), prompt });
 * ```
 */
import { jsonSchema, tool, type JSONSchema7, type Tool } from 'ai';
import type { Engram } from '../client.js';
import {
  argumentProblem,
  runEngramTool,
  selectEngramTools,
  type EngramToolsOptions,
} from './definitions.js';

export type { EngramToolName, EngramToolsOptions } from './definitions.js';

/** The tools by name (`EngramToolName`), as `generateText({ tools })` and `streamText({ tools })` take them. */
export type EngramAiTools = Record<string, Tool<Record<string, unknown>, unknown>>;

/**
 * Engram's tools (`remember`, `recall`, `forget`, `search_nodes`,
 * `open_nodes`, `create_relations`, `delete_relations`, `get_neighbors`,
 * `get_context`) acting through `client`: its space and credential.
 */
export function engramTools(client: Engram, options: EngramToolsOptions = {}): EngramAiTools {
  const tools: EngramAiTools = {};
  for (const definition of selectEngramTools(options)) {
    tools[definition.name] = tool<Record<string, unknown>, unknown>({
      description: definition.description,
      inputSchema: jsonSchema<Record<string, unknown>>(definition.parameters as JSONSchema7, {
        validate: (value) => {
          const problem = argumentProblem(definition.parameters, value);
          return problem
            ? { success: false, error: new TypeError(`${definition.name}: ${problem}`) }
            : { success: true, value: value as Record<string, unknown> };
        },
      }),
      execute: (args) => runEngramTool(definition, client, args, options),
    });
  }
  return tools;
}
