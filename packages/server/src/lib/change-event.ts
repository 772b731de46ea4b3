import type { GraphChange } from '@engram/shared';

/**
 * A committed change, as the change log recorded it (the shared `graphChange`
 * union), with the client that made it when the request named one. The
 * graph's write path records it; realtime and MCP carry it to listeners, so
 * it lives below both.
 */
export type ChangeEvent = GraphChange & {
  accountId: string;
  /** The space the change was made in: its id, and its slug (what clients are told). */
  spaceId: string;
  space: string;
  seq: number;
  at: string;
  origin?: string;
};
