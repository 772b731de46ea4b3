import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LocalInstall } from '@engram/shared';

/**
 * The Engram folder: the one holding `packages/server`, whose
 * `src/features/connect` (or `dist/features/connect`) this file is in.
 */
const INSTALL_DIR = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../../..');

export interface ConnectService {
  /**
   * Where Engram is installed and keeps its data, for the stdio snippet of
   * the Connect an agent panel: only for a request made on this machine
   * (`onThisMachine`: the route's judgement of the connection) and only
   * while PUBLIC_URL is unset (a server others reach by a public address
   * never shows its paths, to anyone); otherwise null.
   */
  localInstall(onThisMachine: boolean): LocalInstall | null;
}

export function createConnectService(deps: {
  publicUrl: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  installDir?: string;
}): ConnectService {
  const embedded = !deps.databaseUrl && !deps.dataDir.startsWith('memory://');
  const install: LocalInstall = {
    installDir: deps.installDir ?? INSTALL_DIR,
    // PostgreSQL has no data folder (`engram mcp` then needs DATABASE_URL).
    dataDir: embedded ? resolve(deps.dataDir) : null,
  };
  return {
    localInstall: (onThisMachine) => (onThisMachine && !deps.publicUrl ? install : null),
  };
}
