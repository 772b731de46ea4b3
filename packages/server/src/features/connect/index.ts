import { defineFeature } from '../feature.js';
import { connectRoutes } from './connect.routes.js';
import { createConnectService } from './connect.service.js';

export type { ConnectService } from './connect.service.js';

/** GET /api/connect: what the Connect an agent panel fills in (the stdio snippet's paths, on this machine only). */
export const connectFeature = defineFeature({
  name: 'connect',
  create: ({ config }) =>
    createConnectService({
      publicUrl: config.PUBLIC_URL,
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
    }),
  routes: connectRoutes,
});
