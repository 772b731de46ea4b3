import type { Entitlements } from '../entitlements/index.js';
import { defineFeature } from '../feature.js';
import { AccountGate } from './account-gate.js';
import { graphRoutes } from './graph.routes.js';
import { createGraphService } from './graph.service.js';
import * as writes from './graph.writes.js';
import * as moves from './merge.writes.js';

export type { GraphService, LikelyDuplicatesPort } from './graph.service.js';
export type { EntityFilter, EntityRef, MemoryGraph, ReadBounds } from './graph.service.js';
export type { RelationFilter } from './relations.service.js';
export type { CallOptions, WriteScope, Written } from './write.js';
export type { EntityRow } from './entities.repository.js';
export { entityNamed } from './names.repository.js';
export type { ObservationRow } from './observations.repository.js';
export type { RelationListFilter, RelationRow } from './relations.repository.js';
export type { GraphWalk, Page } from './graph-reads.service.js';
/** The write operations a `graph.write` call runs on its scope (history's reverts, transfer's imports, merges). */
export const graphWrites = { ...writes, ...moves };
export type { MergeCounts } from './merge.writes.js';
/** What the past's reads share with the present's: answer limits and wire shapes. */
export { fitBytes, observationRowsOf } from './read-bounds.js';
export { toGraphData, toRelation } from './wire-shapes.js';

/**
 * The graph: entities, observations and relations by id or name, the one
 * write path every change goes through, and the reads of the present (the
 * past's are history's; the reads feature chooses between them).
 */
export const graphFeature = defineFeature({
  name: 'graph',
  create(context, { entitlements }: { entitlements: Entitlements }) {
    const { db, now, config } = context;
    return createGraphService({
      db,
      now,
      planOf: (db, accountId) => entitlements.planOf(accountId, now(), db),
      bounds: { maxRows: config.READ_MAX_ROWS, maxBytes: config.READ_MAX_BYTES },
      publish: context.publish,
      writers: new AccountGate(config.STATEMENT_TIMEOUT_MS),
    });
  },
  routes: graphRoutes,
});
