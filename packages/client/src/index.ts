export { Engram, type ContextOptions, type EngramOptions, type RecallOptions } from './client.js';
export { EngramError, NETWORK_ERROR, type EngramErrorDetail } from './errors.js';
export type { RetryOptions } from './transport.js';
export { Paginated, type PageToken } from './pages.js';
export type {
  Entities,
  EntityListOptions,
  Relations,
  RelationListOptions,
  Changes,
  ChangeListOptions,
  TypeListOptions,
} from './graph.js';
export type { Duplicates, Keys, Spaces, Webhooks } from './account.js';
export type {
  GraphEvent,
  GraphEventType,
  LiveEvent,
  LiveOptions,
  ResyncRequired,
  WebSocketInstance,
  WebSocketLike,
} from './live.js';
export {
  toJsonl,
  type ExportFormat,
  type ImportData,
  type ImportFormat,
  type ImportOptions,
  type ImportSummary,
} from './transfer.js';
export { verifyWebhook } from './verify-webhook.js';
export type { Api } from './core.js';
export type * from './types.js';
