import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DataFolderBusyError extends Error {
  override name = 'DataFolderBusyError';
}

const PID_FILE = 'engram.pid';
/** Written by `engram serve` beside the pid file: where the owning process listens. */
const SERVER_FILE = 'engram.server.json';

export interface RunningServer {
  pid: number;
  /** The server's base URL, reachable from this machine (e.g. http://127.0.0.1:8787). */
  url: string;
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
  const path = join(dataDir, PID_FILE);
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
      rmSync(join(dataDir, SERVER_FILE), { force: true });
    }
  }
  throw new DataFolderBusyError(`Could not lock the data folder ${dataDir}`);
}

/**
 * Records, for the process that holds the data folder, the address its HTTP
 * server listens on, so `engram mcp` can reach it instead of opening the
 * folder. Returns the function that withdraws the record.
 */
export function announceServer(dataDir: string, url: string): () => void {
  const path = join(dataDir, SERVER_FILE);
  const record: RunningServer = { pid: process.pid, url };
  writeFileSync(path, JSON.stringify(record));
  return () => rmSync(path, { force: true });
}

/**
 * The server that owns the data folder now, if one announced itself: the
 * record must name the live process that holds the lock.
 */
export function runningServer(dataDir: string): RunningServer | undefined {
  try {
    const owner = Number(readFileSync(join(dataDir, PID_FILE), 'utf8'));
    const record = JSON.parse(readFileSync(join(dataDir, SERVER_FILE), 'utf8')) as RunningServer;
    if (record.pid !== owner || owner === process.pid || !isRunning(owner)) return undefined;
    return typeof record.url === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}
