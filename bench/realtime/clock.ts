/**
 * A sub-millisecond clock on the same scale as the server's `Date` (epoch ms),
 * so a receipt time here minus an event's ISO `timestamp` there is a latency:
 * both processes run on this machine and read one system clock.
 *
 * performance.now() is monotonic and fine-grained but counts from its own
 * origin; it is aligned to Date.now() at a millisecond edge (spin until
 * Date.now() ticks), which puts the two within a few microseconds.
 */
import { performance } from 'node:perf_hooks';

function measureOffset(): number {
  const start = Date.now();
  let now = start;
  while (now === start) now = Date.now();
  return now - (performance.timeOrigin + performance.now());
}

let offset = measureOffset();

/** Now, epoch ms, with a fractional part. */
export function clock(): number {
  return performance.timeOrigin + performance.now() + offset;
}

/** Re-aligns to Date.now(); returns how far the two had drifted apart, ms. */
export function realign(): number {
  const fresh = measureOffset();
  const drift = fresh - offset;
  offset = fresh;
  return drift;
}
