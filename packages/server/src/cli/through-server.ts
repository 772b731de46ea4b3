import type { Config } from '../config.js';
import { DataFolderBusyError, runningServer } from '../db/data-lock.js';
import { UsageError } from './command.js';

/**
 * Runs `local` on the database, or `remote` through a server's HTTP API:
 * the one ENGRAM_URL names, else the `engram serve` that owns the data folder
 * (as `engram mcp` relays to it).
 */
export async function locallyOrThrough(
  config: Config,
  local: () => Promise<void>,
  remote: (base: string, apiKey: string) => Promise<void>,
): Promise<void> {
  const given = process.env['ENGRAM_URL']?.trim();
  const needKey = () => {
    if (!config.ENGRAM_API_KEY) {
      throw new UsageError('Set ENGRAM_API_KEY to an API key of the account to use.');
    }
    return config.ENGRAM_API_KEY;
  };
  if (given) return remote(given, needKey());
  return locallyOrThroughOwner(config, local, remote);
}

/**
 * Runs `local` on the database; when the `engram serve` that owns the
 * embedded data folder refuses it the folder, `remote` through that server.
 */
export async function locallyOrThroughOwner(
  config: Config,
  local: () => Promise<void>,
  remote: (base: string, apiKey: string) => Promise<void>,
): Promise<void> {
  try {
    await local();
  } catch (error) {
    const server =
      error instanceof DataFolderBusyError && !config.DATABASE_URL
        ? runningServer(config.DATA_DIR)
        : undefined;
    if (!server || !config.ENGRAM_API_KEY) throw error;
    await remote(server.url, config.ENGRAM_API_KEY);
  }
}

/** A request to the server's API with the key and space; its error body said as the failure. */
export async function callServer(
  base: string,
  apiKey: string,
  path: string,
  init: { method: string; space?: string | undefined; type?: string; body?: Uint8Array | string },
): Promise<Response> {
  const url = new URL(path, base.endsWith('/') ? base : `${base}/`);
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (init.space) headers['x-engram-space'] = init.space;
  if (init.type) headers['content-type'] = init.type;
  let response: Response;
  try {
    response = await fetch(url, { method: init.method, headers, body: init.body });
  } catch (error) {
    throw new UsageError(`Cannot reach ${url.origin}: ${(error as Error).message}`);
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: string };
    throw new UsageError(
      `The server at ${url.origin} refused it (${response.status}): ${body.error ?? response.statusText}`,
    );
  }
  return response;
}
