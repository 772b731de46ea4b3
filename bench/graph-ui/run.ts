/**
 * Graph view in a real browser: how long the /graph canvas takes from the
 * graph data arriving to a settled layout, and how smooth frames stay while a
 * node is dragged, at 500 nodes (the screen's largest limit, real data through
 * the real API) and 5,000 nodes (the same page fed the whole seeded account).
 *
 *   npx tsx bench/graph-ui/run.ts          # or: npm run bench:graph-ui
 *   BENCH_RUNS=3 BENCH_DRAG_MS=2000 npx tsx bench/graph-ui/run.ts
 *
 * The app measured is the production build plus the canvas's probe
 * (`canvas.graphProbe`, which the production build leaves out): this script
 * builds it into a temporary folder first (packages/web/e2e/probe-build.ts,
 * VITE_GRAPH_PROBE=1; a few seconds). The server runs in this process on a
 * fresh PGlite folder; one account on the team plan is seeded with
 * BENCH_ENTITIES entities (default 5,000; 3 observations and 2 relations
 * each, bench/graph/seed.ts). Chromium is Debian's /usr/bin/chromium
 * (CHROMIUM_PATH overrides), headless, software rendering (--disable-gpu),
 * 1280×900, device scale 1.
 *
 * Results and how to read them: bench/graph-ui/README.md.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { buildApp } from '../../packages/server/src/app.js';
import { loadConfig } from '../../packages/server/src/config.js';
import { openDatabase } from '../../packages/server/src/db/connection.js';
import { createRuntime } from '../../packages/server/src/runtime.js';
import { buildWebWithProbe } from '../../packages/web/e2e/probe-build.js';
import { signUpOnTeamPlan } from '../graph/bench-account.js';
import { seedGraph } from '../graph/seed.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 5_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const DRAG_MS = Number(process.env.BENCH_DRAG_MS ?? 3_000);

interface GraphData {
  entities: { id: string; name: string; type: string; observationsCount: number }[];
  relations: {
    id: string;
    fromEntityId: string;
    toEntityId: string;
    relationType: string;
    type: string;
  }[];
}

interface LoadSample {
  nodes: number;
  edges: number;
  /** Graph data response end → layout settled (ms). */
  settleMs: number;
  /** Graph data response end → the canvas had the data (parse, React render). */
  toCanvasMs: number;
  /** Longest gap between animation frames while the layout settled (ms), and when it began. */
  maxFrameGapMs: number;
  maxFrameGapAtMs: number;
  /** 95th percentile of the frame intervals while it settled. */
  p95FrameGapMs: number;
  /** Main-thread long tasks (> 50 ms) while it settled. */
  longTasks: number;
}

interface DragSample {
  frames: number;
  intervals: number[];
  drawTimes: number[];
  moves: number;
  longTasks: number;
}

const percentile = (values: number[], p: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
};
const median = (values: number[]) => percentile(values, 0.5);
const fmt = (ms: number) => (Number.isNaN(ms) ? '–' : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

/** Records every animation frame and long task from the first script on, for the page's life. */
const RECORDER = `
  window.__frames = [];
  window.__longTasks = [];
  const loop = (t) => { window.__frames.push(t); requestAnimationFrame(loop); };
  requestAnimationFrame(loop);
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longTasks.push([entry.startTime, entry.duration]);
    }).observe({ type: 'longtask', buffered: true });
  } catch {}
`;

type Probe = {
  nodeCount: number;
  edgeCount: number;
  layoutState: string;
  drawTimes: number[];
  layouts: { nodes: number; receivedAt: number; settledAt: number | null }[];
  screenPositionOf(id: string): { x: number; y: number } | null;
};

type Recorded = { __frames: number[]; __longTasks: [number, number][] };

async function measureLoad(page: Page, path: string): Promise<LoadSample> {
  await page.goto(path);
  const canvas = page.getByTestId('graph-canvas');
  await canvas.waitFor();
  await page.waitForFunction(
    () =>
      document.querySelector('[data-testid="graph-canvas"]')?.getAttribute('data-layout') ===
      'settled',
    undefined,
    { timeout: 180_000, polling: 100 },
  );
  return page.evaluate(() => {
    const element = document.querySelector('[data-testid="graph-canvas"]') as HTMLCanvasElement & {
      graphProbe: Probe;
    };
    const probe = element.graphProbe;
    const layout = probe.layouts[0]!;
    const resource = performance
      .getEntriesByType('resource')
      .filter((entry) => entry.name.includes('/api/relations/graph/data'))
      .at(-1) as PerformanceResourceTiming;
    const start = resource.responseEnd;
    const end = layout.settledAt!;
    const recorded = window as unknown as Recorded;
    const frames = recorded.__frames.filter((t) => t >= start && t <= end);
    let maxGap = frames.length > 0 ? frames[0]! - start : end - start;
    let maxGapAt = 0;
    for (let i = 1; i < frames.length; i++) {
      if (frames[i]! - frames[i - 1]! > maxGap) {
        maxGap = frames[i]! - frames[i - 1]!;
        maxGapAt = frames[i - 1]! - start;
      }
    }
    const gaps = frames
      .slice(1)
      .map((t, i) => t - frames[i]!)
      .sort((a, b) => a - b);
    return {
      p95FrameGapMs: gaps.length ? gaps[Math.ceil(0.95 * gaps.length) - 1]! : end - start,
      nodes: probe.nodeCount,
      edges: probe.edgeCount,
      settleMs: end - start,
      toCanvasMs: layout.receivedAt - start,
      maxFrameGapMs: maxGap,
      maxFrameGapAtMs: maxGapAt,
      longTasks: recorded.__longTasks.filter(([t]) => t >= start && t <= end).length,
    };
  });
}

/** Drags the best-connected node in circles for DRAG_MS, one pointer move per ~16 ms. */
async function measureDrag(page: Page, nodeId: string): Promise<DragSample> {
  const canvas = page.getByTestId('graph-canvas');
  const box = (await canvas.boundingBox())!;
  const start = await canvas.evaluate(
    (element, id) =>
      (element as HTMLCanvasElement & { graphProbe: Probe }).graphProbe.screenPositionOf(id),
    nodeId,
  );
  if (!start) throw new Error('node to drag is not drawn');
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  const before = await page.evaluate(() => ({
    t: performance.now(),
    draws: (
      document.querySelector('[data-testid="graph-canvas"]') as HTMLCanvasElement & {
        graphProbe: Probe;
      }
    ).graphProbe.drawTimes.length,
  }));
  const began = Date.now();
  let moves = 0;
  while (Date.now() - began < DRAG_MS) {
    const angle = ((Date.now() - began) / 1000) * Math.PI;
    await page.mouse.move(centre.x + 150 * Math.cos(angle), centre.y + 120 * Math.sin(angle));
    moves++;
    await new Promise((resolve) => setTimeout(resolve, 16));
  }
  const result = await page.evaluate((since) => {
    const probe = (
      document.querySelector('[data-testid="graph-canvas"]') as HTMLCanvasElement & {
        graphProbe: Probe;
      }
    ).graphProbe;
    const now = performance.now();
    const recorded = window as unknown as Recorded;
    const frames = recorded.__frames.filter((t) => t >= since.t && t <= now);
    const intervals = frames.slice(1).map((t, i) => t - frames[i]!);
    return {
      frames: frames.length,
      intervals,
      // drawTimes keeps the last 2,000 frames; a drag of a few seconds fits.
      drawTimes: probe.drawTimes.slice(since.draws),
      longTasks: recorded.__longTasks.filter(([t]) => t >= since.t && t <= now).length,
    };
  }, before);
  await page.mouse.up();
  return { ...result, moves };
}

async function main() {
  const webDist = await buildWebWithProbe();
  const [load] = loadavg();
  console.log(
    `bench/graph-ui: ${ENTITIES.toLocaleString('en-US')} entities, ${RUNS} loads per size, ` +
      `${DRAG_MS} ms drags; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} on ${cpus().length} cores`,
  );
  if (load! > cpus().length * 0.75)
    console.log('warning: the machine is busy, expect inflated numbers');

  const dataDir = await mkdtemp(join(tmpdir(), 'engram-bench-ui-'));
  const handle = await openDatabase({ dataDir });
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    NODE_ENV: 'production',
    WEB_DIST_DIR: webDist,
    API_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  const runtime = await createRuntime(config, { database: handle });
  const app = await buildApp({ config, runtime });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

    // Measurement tooling only: the team plan allows the seeded size; the data is set-based SQL.
    const { token, accountId } = await signUpOnTeamPlan(app, handle);
    const full = await handle.withSession(async (session) => {
      await seedGraph(session, { accountId, entities: ENTITIES });
      const entities = await session.query<{
        id: string;
        name: string;
        type: string;
        observations_count: number;
      }>(
        'select id, name, type, observations_count from entities where space_id = $1 order by id',
        [accountId],
      );
      const relations = await session.query<{
        id: string;
        from_id: string;
        to_id: string;
        type: string;
      }>('select id, from_id, to_id, type from relations where space_id = $1 order by ordinal', [
        accountId,
      ]);
      const data: GraphData = {
        entities: entities.map((row) => ({
          id: row.id,
          name: row.name,
          type: row.type,
          observationsCount: row.observations_count,
        })),
        relations: relations.map((row) => ({
          id: row.id,
          fromEntityId: row.from_id,
          toEntityId: row.to_id,
          relationType: row.type,
          type: row.type,
        })),
      };
      return data;
    });
    console.log(`seeded ${full.entities.length} entities and ${full.relations.length} relations`);

    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      deviceScaleFactor: 1,
    });
    await context.addInitScript(RECORDER);
    const page = await context.newPage();
    await page.goto(`${origin}/pricing`);
    await page.evaluate((value) => localStorage.setItem('auth_token', value), token);

    const results: { label: string; loads: LoadSample[]; drag: DragSample }[] = [];
    for (const size of ['500', 'all'] as const) {
      if (size === 'all') {
        const body = JSON.stringify(full);
        await page.route(
          (url) => url.pathname === '/api/relations/graph/data',
          (route) => route.fulfill({ status: 200, contentType: 'application/json', body }),
        );
      }
      const loads: LoadSample[] = [];
      if (process.env.BENCH_TRACE && size === 'all') {
        // A Chrome trace of one load, for chrome://tracing or Perfetto.
        await browser.startTracing(page, { path: process.env.BENCH_TRACE, screenshots: false });
        await measureLoad(page, `${origin}/graph?limit=500&depth=2`);
        await browser.stopTracing();
        console.log(`  trace of one ${full.entities.length}-node load: ${process.env.BENCH_TRACE}`);
      }
      for (let run = 0; run < RUNS; run++) {
        loads.push(await measureLoad(page, `${origin}/graph?limit=500&depth=2`));
        const last = loads.at(-1)!;
        console.log(
          `  ${last.nodes} nodes / ${last.edges} edges: settled ${fmt(last.settleMs)} ms after the data ` +
            `(canvas had it after ${fmt(last.toCanvasMs)} ms), frame interval p95 ${fmt(last.p95FrameGapMs)} ms, ` +
            `longest ${fmt(last.maxFrameGapMs)} ms ` +
            `at ${fmt(last.maxFrameGapAtMs)} ms, ` +
            `${last.longTasks} long tasks`,
        );
      }
      // Drag the best-connected node: the first of the answer (one of the seed's hubs).
      const firstId = size === 'all' ? full.entities[0]!.id : await firstNodeId(page);
      const drag = await measureDrag(page, firstId);
      console.log(
        `  drag: ${drag.frames} frames in ${DRAG_MS} ms, interval p50 ${fmt(median(drag.intervals))} ` +
          `p95 ${fmt(percentile(drag.intervals, 0.95))} max ${fmt(Math.max(...drag.intervals))} ms; ` +
          `draw p50 ${fmt(median(drag.drawTimes))} p95 ${fmt(percentile(drag.drawTimes, 0.95))} ms; ` +
          `${drag.moves} pointer moves, ${drag.longTasks} long tasks`,
      );
      results.push({
        label:
          size === '500'
            ? '500 (limit 500, real API)'
            : `${full.entities.length.toLocaleString('en-US')} (whole account)`,
        loads,
        drag,
      });
    }

    console.log('');
    console.log(
      `Graph view in Chromium (headless, software rendering), 1280×900 — ${cpus().length} CPUs, ` +
        `load average after: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
    );
    console.log('');
    console.log(
      '| nodes | edges | data → settled, median (min–max) ms | while settling: frame interval p95 / max ms | long tasks | drag: frame interval p50 / p95 / max ms | drag: draw p50 / p95 ms | drag: fps |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const { label, loads, drag } of results) {
      const settle = loads.map((l) => l.settleMs);
      const fps = (drag.frames / DRAG_MS) * 1000;
      console.log(
        `| ${label} | ${loads[0]!.edges.toLocaleString('en-US')} | ${fmt(median(settle))} (${fmt(Math.min(...settle))}–${fmt(Math.max(...settle))}) | ` +
          `${fmt(median(loads.map((l) => l.p95FrameGapMs)))} / ${fmt(median(loads.map((l) => l.maxFrameGapMs)))} | ` +
          `${median(loads.map((l) => l.longTasks))} | ` +
          `${fmt(median(drag.intervals))} / ${fmt(percentile(drag.intervals, 0.95))} / ${fmt(Math.max(...drag.intervals))} | ` +
          `${fmt(median(drag.drawTimes))} / ${fmt(percentile(drag.drawTimes, 0.95))} | ${fps.toFixed(0)} |`,
      );
    }
  } finally {
    await browser.close();
    await app.close();
    await runtime.close();
    await handle.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(webDist, { recursive: true, force: true });
  }
}

/** The first node of the /graph answer: the best-connected entity. */
async function firstNodeId(page: Page): Promise<string> {
  const entry = await page.evaluate(async () => {
    const token = localStorage.getItem('auth_token');
    const response = await fetch('/api/relations/graph/data?limit=500&depth=2', {
      headers: { Authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { entities: { id: string }[] };
    return body.entities[0]?.id ?? null;
  });
  if (!entry) throw new Error('the graph is empty');
  return entry;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
