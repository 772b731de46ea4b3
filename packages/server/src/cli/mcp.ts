import { parseArgs } from 'node:util';
import { DataFolderBusyError, runningServer } from '../db/data-lock.js';
import { bridgeStdio } from '../mcp/bridge.js';
import { serveStdio } from '../mcp/stdio.js';
import type { Command } from './command.js';
import { withSpace } from './space.js';

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
    try {
      // Read access is what opening needs; each tool checks its own (a read-only key stays usable).
      await withSpace(config, { slug: values.space, access: 'read' }, (runtime, auth) =>
        serveStdio(runtime, auth, { webDistDir: config.WEB_DIST_DIR }),
      );
    } catch (error) {
      const server =
        error instanceof DataFolderBusyError && !config.DATABASE_URL
          ? runningServer(config.DATA_DIR)
          : undefined;
      if (!server || !config.ENGRAM_API_KEY) throw error;
      const path = values.space ? `/mcp/${encodeURIComponent(values.space)}` : '/mcp';
      await bridgeStdio({ url: new URL(path, server.url).href, credential: config.ENGRAM_API_KEY });
    }
  },
};
