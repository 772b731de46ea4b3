import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Runtime } from '../runtime.js';
import type { AuthContext } from '../lib/auth-context.js';
import { createMemoryServer } from './memory-server.js';

/**
 * Serves the memory tools over stdin/stdout for a desktop agent, acting for
 * the account of `auth`. Resolves when the client disconnects.
 */
export async function serveStdio(runtime: Runtime, auth: AuthContext): Promise<void> {
  const server = createMemoryServer({
    graph: runtime.graph,
    usage: runtime.usage,
    bus: runtime.bus,
    auth,
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  await server.connect(transport);
  await closed;
}
