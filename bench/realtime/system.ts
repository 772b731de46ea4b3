/** What else the machine is doing: whole-system CPU from /proc/stat, and waiting for quiet. */
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';

export interface CpuSample {
  /** Busy and total jiffies over all cores. */
  busy: number;
  total: number;
}

export async function systemCpu(): Promise<CpuSample> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0]!;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is inside user).
  const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
}

export const CORES = cpus().length;

/** Cores' worth of CPU the whole system used between two samples. */
export function busyCores(from: CpuSample, to: CpuSample): number {
  const total = to.total - from.total;
  return total > 0 ? ((to.busy - from.busy) / total) * CORES : 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits (up to `maxSeconds`) until the machine uses under `cores` of CPU over
 * a 3 s window; returns the last window's busy cores.
 */
export async function waitForQuiet(cores: number, maxSeconds: number): Promise<number> {
  const deadline = Date.now() + maxSeconds * 1000;
  let busy = Infinity;
  do {
    const from = await systemCpu();
    await sleep(3_000);
    busy = busyCores(from, await systemCpu());
    if (busy < cores) return busy;
  } while (Date.now() < deadline);
  return busy;
}
