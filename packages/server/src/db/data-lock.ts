import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataFolderBusyError extends Error {
  override name = 'DataFolderBusyError';
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * PGlite is one process's database: two processes on one folder would corrupt
 * it. A pid file marks the folder as taken; a stale one (its process gone) is
 * taken over. Returns the release function.
 */
export function lockDataFolder(dataDir: string): () => void {
  const path = join(dataDir, 'engram.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8'));
      if (Number.isInteger(owner) && owner !== process.pid && isRunning(owner)) {
        throw new DataFolderBusyError(
          `Another Engram process (pid ${owner}) is using the data folder ${dataDir}. ` +
            'Stop it first — or, for MCP, point your agent at that server’s /mcp endpoint.',
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataFolderBusyError(`Could not lock the data folder ${dataDir}`);
}
