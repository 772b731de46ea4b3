import {
  duplicatePairInput,
  entity,
  ENTITY_NAME_MAX,
  HISTORY_PAGE_MAX,
  historyPage,
  revertResult,
} from '@engram/shared';
import { z } from 'zod';
import { VIEWS, type ViewName } from './views.js';

/** The tools whose results a view shows, and the view each opens (`_meta.ui.resourceUri`). */
export const LINKED_TOOLS: Record<string, ViewName> = {
  read_graph: 'graph',
  get_neighbors: 'graph',
  find_path: 'graph',
  open_nodes: 'entity',
  find_duplicates: 'duplicates',
};

const reads = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const writes = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

const name = z.string().min(1).max(ENTITY_NAME_MAX);

/** Callable by a view only (`visibility: ['app']`): hosts keep them from the model. */
const appOnly = (view: ViewName) => ({
  ui: { resourceUri: VIEWS[view].uri, visibility: ['app' as const] },
});

/**
 * The tools only a view calls, listed only to clients that declare the MCP
 * Apps extension. Built once, like `TOOLS`.
 */
export const VIEW_TOOLS = {
  view_access: {
    title: 'View access',
    description:
      'Whether this connection may change the memory, and why not: a view disables its write buttons with the reason.',
    inputSchema: z.object({}),
    outputSchema: z.object({ canWrite: z.boolean(), reason: z.string().nullable() }),
    annotations: reads,
    _meta: appOnly('entity'),
  },
  entity_details: {
    title: 'Entity details',
    description:
      'One entity as a view shows it: type, aliases, metadata, observations with their dates, and the relations touching it.',
    inputSchema: z.object({ name }),
    outputSchema: z.object({
      entity,
      relations: z.array(z.object({ from: z.string(), to: z.string(), relationType: z.string() })),
      truncated: z.string().optional(),
    }),
    annotations: reads,
    _meta: appOnly('entity'),
  },
  entity_history: {
    title: 'Entity history',
    description:
      "An entity's recent changes, newest first: each with its seq, the call it was part of, who made it and the entity before and after. `nextCursor` is passed as `cursor` for older ones.",
    inputSchema: z.object({
      name,
      limit: z.number().int().min(1).max(HISTORY_PAGE_MAX).optional(),
      cursor: z.string().max(200).optional(),
    }),
    outputSchema: historyPage,
    annotations: reads,
    _meta: appOnly('entity'),
  },
  revert_change: {
    title: 'Revert change',
    description:
      'Revert everything the call that made change `seq` did, recorded as a change itself. Fails, naming what, when something it changed was changed since.',
    inputSchema: z.object({ seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }),
    outputSchema: revertResult,
    annotations: { ...writes, destructiveHint: true },
    _meta: appOnly('entity'),
  },
  dismiss_duplicate: {
    title: 'Dismiss duplicate',
    description:
      'Say two entities (by id) are not the same thing: the pair is not proposed again until one of them is renamed.',
    inputSchema: duplicatePairInput,
    outputSchema: z.object({ success: z.literal(true) }),
    annotations: { ...writes, idempotentHint: true },
    _meta: appOnly('duplicates'),
  },
};
