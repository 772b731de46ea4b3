import { defineFeature } from '../feature.js';
import type { GraphService } from '../graph/index.js';
import type { HistoryService } from '../history/index.js';
import { DuplicateFinder, type FinderOptions } from './duplicate-finder.js';
import { duplicatesRoutes } from './duplicates.routes.js';
import { createDuplicatesService } from './duplicates.service.js';
import { likelyDuplicatesOf, twinsOf } from './likely-duplicates.js';

export type { DuplicatesService } from './duplicates.service.js';
export type { FinderOptions } from './duplicate-finder.js';

/**
 * Consolidation (docs/consolidation.md): candidate pairs of duplicate
 * entities kept in the background from each account's change log, read best
 * first, and dismissed; and merges, which write through the graph's write
 * path (the finder reads the graph's tables, and the change log through
 * history, and never writes them).
 */
export const duplicatesFeature = defineFeature({
  name: 'duplicates',
  create(
    context,
    { graph, history }: { graph: GraphService; history: HistoryService },
    tuning?: Partial<FinderOptions>,
  ) {
    const finder = new DuplicateFinder(
      {
        db: context.db,
        lastRequestAt: context.lastRequestAt,
        // History's reader, which knows of compaction and holds.
        read: (accountId, seq, limit) => history.changesAfter({ accountId }, seq, limit),
        // The skipped row's ids and the error's kind, never its text.
        warn: (failure, message) => context.onWarn({ ...failure }, message),
      },
      {
        // One embedded process makes every write itself and wakes on it: its timer is for catching up.
        pollMs: context.config.DATABASE_URL ? 2_000 : 5_000,
        // PGlite runs every statement on one thread: while requests come, the finder takes at
        // most a quarter of its time, in small steps, so they wait little behind it.
        restRatio: context.config.DATABASE_URL ? 0.25 : 3,
        chunk: context.config.DATABASE_URL ? 100 : 50,
        ...tuning,
      },
      (error) => context.onError(error, 'finding duplicates failed; retried later'),
    );
    graph.attachLikelyDuplicates({
      likelyDuplicatesOf: (auth, given) => likelyDuplicatesOf(context.db, auth.space.id, given),
      twinsOf,
    });
    finder.start();
    context.onPublished(() => finder.nudge());
    context.onClose(() => finder.close());
    return {
      ...createDuplicatesService({ db: context.db, finder, graph }),
      /** The background finder (tests run it by hand: `finder.drain()`, `finder.stop()`). */
      finder,
    };
  },
  routes: duplicatesRoutes,
});
