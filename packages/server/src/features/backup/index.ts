import { defineFeature } from '../feature.js';
import { createBackupService } from './backup.service.js';
import { backupRoutes } from './backup.routes.js';

export { BACKUP_TOKEN_HEADER } from './backup.routes.js';

/** POST /internal/backup: a running embedded server's snapshot, for `engram backup` (decision 038). */
export const backupFeature = defineFeature({
  name: 'backup',
  create: (context) =>
    createBackupService({ database: context.database, dataDir: context.config.DATA_DIR }),
  routes: backupRoutes,
});
