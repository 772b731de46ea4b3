import { snapshotEmbedded } from '../../db/backup-embedded.js';
import { headerBytes } from '../../db/backup-file.js';
import { isBackupToken } from '../../db/backup-token.js';
import type { DatabaseHandle } from '../../db/connection.js';

export interface BackupService {
  /**
   * Whether `presented` is the token this server wrote into its data folder
   * at start (`engram serve` only, on the embedded database: every other
   * process, a test app included, wrote none and so authorises no one).
   */
  authorizes(presented: string): boolean;
  /** A whole `engram backup` file: its header, then the data folder's snapshot. */
  backupFile(): Promise<Buffer>;
}

export function createBackupService(deps: {
  database: DatabaseHandle;
  dataDir: string;
}): BackupService {
  return {
    authorizes: (presented) =>
      deps.database.kind === 'pglite' &&
      !deps.dataDir.startsWith('memory://') &&
      isBackupToken(deps.dataDir, presented),
    backupFile: async () => {
      const { header, payload } = await snapshotEmbedded(deps.database);
      return Buffer.concat([headerBytes(header), payload]);
    },
  };
}
