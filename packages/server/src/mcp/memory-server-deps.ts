import type { FastifyBaseLogger } from 'fastify';
import type { DuplicatesService } from '../features/duplicates/index.js';
import type { GraphService } from '../features/graph/index.js';
import type { HistoryService } from '../features/history/index.js';
import type { ReadsService } from '../features/reads/index.js';
import type { RecallService } from '../features/recall/index.js';
import type { UsageMeter } from '../features/usage/index.js';
import type { SpaceAuth } from '../lib/auth-context.js';
import type { EventBus } from '../realtime/event-bus.js';

/** What one memory server runs on (memory-server.ts); its tools (tools/) see the same. */
export interface MemoryServerDeps {
  graph: GraphService;
  /** The reads that take `asOf`: the present or the past. */
  reads: ReadsService;
  history: Pick<HistoryService, 'undoLast' | 'entityHistory' | 'revertChange'>;
  duplicates: Pick<DuplicatesService, 'listDuplicates' | 'mergeEntities' | 'dismissDuplicate'>;
  recall: RecallService;
  usage: UsageMeter;
  bus: EventBus;
  /** The credential, and the space this server serves (its URL's: /mcp is `default`). */
  auth: SpaceAuth;
  log?: FastifyBaseLogger | undefined;
  /**
   * How graph changes reach this instance's client:
   * - `subscribe` (2025 era): `resources/subscribe` starts notifications on
   *   this connection, `resources/unsubscribe` stops them;
   * - `push` (2026 era on stdio): every change is sent, and the stdio entry's
   *   `subscriptions/listen` router passes it on to the listens that asked;
   * - `none` (2026 era over HTTP): a per-request instance; listens are served
   *   by the HTTP entry from the account's event bus (see http-stateless.ts).
   */
  updates: 'subscribe' | 'push' | 'none';
  /** The web app's build, whose `mcp-apps/` holds the MCP Apps views (`WEB_DIST_DIR`). */
  webDistDir?: string | undefined;
}

/** The services a memory server uses, as a runtime or the HTTP entry holds them. */
export type MemoryServices = Pick<
  MemoryServerDeps,
  'graph' | 'reads' | 'history' | 'duplicates' | 'recall' | 'usage' | 'bus'
>;

/** Just those services, picked from a holder of more. */
export const memoryServicesOf = (from: MemoryServices): MemoryServices => ({
  graph: from.graph,
  reads: from.reads,
  history: from.history,
  duplicates: from.duplicates,
  recall: from.recall,
  usage: from.usage,
  bus: from.bus,
});
