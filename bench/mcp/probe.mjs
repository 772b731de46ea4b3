/**
 * Preloaded into a server process under test (`node --import probe.mjs …`):
 * watches its event loop (1 ms resolution) and its resident memory, and on
 * SIGUSR2 writes the longest stall and the peak memory since the last report
 * to BENCH_PROBE_FILE (JSON, numbered), then starts over. Loaded into both
 * Engram and the reference server, so each is measured in its own process.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BENCH_PROBE_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  let peak = process.memoryUsage.rss();
  let reports = 0;
  const sample = () => (peak = Math.max(peak, process.memoryUsage.rss()));
  setInterval(sample, 50).unref();
  process.on('SIGUSR2', () => {
    sample();
    reports += 1;
    const report = {
      report: reports,
      loopMaxMs: histogram.max / 1e6,
      peakRssMb: peak / 2 ** 20,
      rssMb: process.memoryUsage.rss() / 2 ** 20,
    };
    writeFileSync(file, JSON.stringify(report));
    histogram.reset();
    peak = process.memoryUsage.rss();
  });
}
