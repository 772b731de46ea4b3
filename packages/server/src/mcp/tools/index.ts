import type { McpServer, StandardSchemaWithJSON, ToolCallback } from '@modelcontextprotocol/server';
import type { McpToolName } from '@engram/shared';
import type { ToolContext, ToolHandlers } from './context.js';
import { duplicateTools } from './duplicates.js';
import { historyTools } from './history.js';
import { readTools } from './reads.js';
import { recallTools } from './recall.js';
import { TOOLS } from './schemas.js';
import { writeTools } from './writes.js';

export type { ToolContext } from './context.js';

/**
 * Registers every MCP tool, in the order of shared's table (the order
 * `tools/list` answers), each with the handler of its purpose's file.
 */
export function registerMemoryTools(server: McpServer, context: ToolContext): void {
  const handlers: ToolHandlers = {
    ...writeTools(context),
    ...readTools(context),
    ...recallTools(context),
    ...historyTools(context),
    ...duplicateTools(context),
  };
  for (const name of Object.keys(TOOLS) as McpToolName[]) {
    // Each handler is typed by its own tool's schema above; one loop cannot pair them.
    const handler = handlers[name] as ToolCallback<StandardSchemaWithJSON>;
    server.registerTool<StandardSchemaWithJSON, StandardSchemaWithJSON>(name, TOOLS[name], handler);
  }
}
