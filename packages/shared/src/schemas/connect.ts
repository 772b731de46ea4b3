import { z } from 'zod';

/**
 * Where Engram lives on the machine it runs on, for the stdio snippet of the
 * Connect an agent panel (`node <installDir>/packages/server/dist/main.js mcp`
 * with `DATA_DIR=<dataDir>`).
 */
export const localInstall = z.object({
  /** The Engram folder (the one holding `packages/server`), absolute. */
  installDir: z.string(),
  /** The embedded database's folder (`DATA_DIR`), absolute; null when the database is PostgreSQL (`DATABASE_URL`). */
  dataDir: z.string().nullable(),
});
export type LocalInstall = z.infer<typeof localInstall>;

/**
 * GET /api/connect: what the Connect an agent panel fills in besides the MCP
 * URL. `local` is given only to a person on the server's own machine — the
 * request came straight over loopback, to a loopback name, not through a
 * proxy — and only while `PUBLIC_URL` is not set; otherwise it is null and
 * the panel keeps its placeholders: a server's paths are never shown to
 * anyone else.
 */
export const connectInfo = z.object({
  local: localInstall.nullable(),
});
export type ConnectInfo = z.infer<typeof connectInfo>;
