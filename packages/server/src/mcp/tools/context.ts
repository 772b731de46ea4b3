import type { CallToolResult, ToolCallback } from '@modelcontextprotocol/server';
import type { McpToolName } from '@engram/shared';
import type { GraphService } from '../../features/graph/index.js';
import type { Operation } from '../../features/usage/index.js';
import type { SpaceAuth } from '../../lib/auth-context.js';
import type { MemoryServerDeps } from '../memory-server-deps.js';
import type { TOOLS } from './schemas.js';

/** What every tool handler runs on: one memory server's services, credential and runner. */
export interface ToolContext {
  graph: GraphService;
  auth: SpaceAuth;
  deps: MemoryServerDeps;
  /** Refuses what the credential may not do, meters the call, turns failures into tool errors. */
  run: (operation: Operation, fn: () => Promise<CallToolResult>) => Promise<CallToolResult>;
}

/** One handler per MCP tool, each typed by its tool's input schema. */
export type ToolHandlers = {
  [Name in McpToolName]: ToolCallback<(typeof TOOLS)[Name]['inputSchema']>;
};
