import { parseArgs } from 'node:util';
import { bridgeStdio } from '../mcp/bridge.js';
import { serveStdio } from '../mcp/stdio.js';
import type { Command } from './command.js';
import { withSpace } from './space.js';
import { locallyOrThroughOwner } from './through-server.js';

/**
 * `engram mcp`: opens the database itself, or — when a running server owns
 * the embedded data folder — relays stdio to that server's /mcp with the
 * same key.
 */
export const mcp: Command = {
  help: `  mcp [--space <slug>]      Serve the MCP memory tools over stdio (needs ENGRAM_API_KEY);
                            while engram serve owns the data folder, relays to its /mcp`,
  async run(config, args) {
    const { values } = parseArgs({ args, options: { space: { type: 'string' } } });
    await locallyOrThroughOwner(
      config,
      // Read access is what opening needs; each tool checks its own (a read-only key stays usable).
      () =>
        withSpace(config, { slug: values.space, access: 'read' }, (runtime, auth) =>
          serveStdio(runtime, auth, { webDistDir: config.WEB_DIST_DIR }),
        ),
      async (base, apiKey) => {
        const path = values.space ? `/mcp/${encodeURIComponent(values.space)}` : '/mcp';
        await bridgeStdio({ url: new URL(path, base).href, credential: apiKey });
      },
    );
  },
};
