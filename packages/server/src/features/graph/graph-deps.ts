import type { ReadBounds } from './read-bounds.js';
import type { WriteDeps } from './write.js';

/** The graph service's dependencies: the write path's, and how much one read may answer. */
export interface GraphDeps extends WriteDeps {
  /** How much one read may answer (READ_MAX_ROWS, READ_MAX_BYTES). */
  bounds: ReadBounds;
}
