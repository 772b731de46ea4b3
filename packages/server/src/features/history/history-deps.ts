import type { Db } from '../../db/connection.js';
import type { GraphService, ReadBounds } from '../graph/index.js';

/** What history's services are built from: its tables, the graph's answer limits, and the graph it writes through. */
export interface HistoryDeps {
  db: Db;
  bounds: ReadBounds;
  /** Reverts and purges run through the graph's write path (`graph.write`). */
  graph: GraphService;
}
