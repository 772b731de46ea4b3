/**
 * Realtime gateway benchmark: BENCH_CLIENTS WebSocket subscribers on one node,
 * a writer creating entities at a steady BENCH_RATE per second for
 * BENCH_SECONDS; reports delivery latency from commit to receipt (p50 … max),
 * checks every subscriber got every write exactly once, and judges the run
 * against the target: p99 under 50 ms for 1,000 subscribers at 200 writes/s.
 *
 *   npx tsx bench/realtime/run.ts
 *   BENCH_CLIENTS=500 BENCH_RATE=100 BENCH_SECONDS=30 npx tsx bench/realtime/run.ts
 *   BENCH_SWEEP=1000@200,1000@100,500@200 npx tsx bench/realtime/run.ts
 *   BENCH_PROFILE=1 BENCH_SWEEP=1000@200 npx tsx bench/realtime/run.ts
 *   BENCH_GATEWAY_REF=ff48561 npx tsx bench/realtime/run.ts   # A/B: that commit's gateway.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/realtime/run.ts
 *
 * The server is a real `engram serve` child process on a fresh PGlite data
 * folder; the subscribers and the writer run here. See bench/README.md.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { clock, realign } from './clock.js';
import { summarizeProfile, type ProfileSummary } from './profile.js';
import {
  createDatabase,
  exportServer,
  prepareAccount,
  startServer,
  type ServerProcess,
} from './server.js';
import { replayAfter, Subscribers } from './subscribers.js';
import { busyCores, CORES, systemCpu, waitForQuiet } from './system.js';
import { Writer } from './writer.js';

const TARGET = { clients: 1000, rate: 200, p99Ms: 50 };

interface Config {
  clients: number;
  rate: number;
}

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0`);
  return value;
}

const options = {
  clients: envNumber('BENCH_CLIENTS', TARGET.clients),
  rate: envNumber('BENCH_RATE', TARGET.rate),
  seconds: envNumber('BENCH_SECONDS', 20),
  warmupSeconds: envNumber('BENCH_WARMUP_SECONDS', 3),
  /** How long to wait after the last write for stragglers before counting them lost. */
  drainMs: envNumber('BENCH_DRAIN_MS', 10_000),
  /** The writer stops once this many seconds of writes are unanswered: the server cannot keep up. */
  maxLagSeconds: envNumber('BENCH_MAX_LAG_SECONDS', 2),
  p99Ms: envNumber('BENCH_TARGET_P99_MS', TARGET.p99Ms),
  /** "clients@rate,…": run exactly these; otherwise the one configuration, then (on a miss) a sweep. */
  sweep: process.env.BENCH_SWEEP ?? '',
  autoSweep: process.env.BENCH_AUTO_SWEEP !== '0',
  profile: process.env.BENCH_PROFILE === '1',
  serverRef: process.env.BENCH_SERVER_REF ?? '',
  /** Run the server with gateway.ts from this git ref (everything else as BENCH_SERVER_REF / working tree). */
  gatewayRef: process.env.BENCH_GATEWAY_REF ?? '',
  /** Before each run, wait up to this many seconds for the machine to go quiet. */
  quietWaitSeconds: envNumber('BENCH_QUIET_WAIT', 0),
  quietCores: envNumber('BENCH_QUIET_CORES', 0.3),
  out: process.env.BENCH_OUT ?? '',
  /** A PostgreSQL server (its URL, as TEST_DATABASE_URL): run on a fresh database there, not PGlite. */
  databaseServer: process.env.BENCH_DATABASE_URL ?? '',
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ── statistics ──────────────────────────────────────────────────────────────

interface Dist {
  n: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
  min: number;
}

/** Nearest-rank percentiles; sorts `values` in place. */
function dist(values: Float64Array): Dist {
  const n = values.length;
  if (n === 0)
    return { n, mean: NaN, p50: NaN, p90: NaN, p95: NaN, p99: NaN, p999: NaN, max: NaN, min: NaN };
  values.sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i]!;
  const at = (p: number) => values[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))]!;
  return {
    n,
    mean: sum / n,
    p50: at(50),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    p999: at(99.9),
    max: values[n - 1]!,
    min: values[0]!,
  };
}

// ── one run ─────────────────────────────────────────────────────────────────

interface RunResult {
  config: Config;
  seconds: number;
  openSeconds: number;
  writes: {
    planned: number;
    /** Not sent: the writer stopped when the server fell BENCH_MAX_LAG_SECONDS behind. */
    notSent: number;
    attempted: number;
    ok: number;
    failed: Record<string, number>;
    offeredRate: number;
    completedRate: number;
    httpMs: Dist;
    scheduleLagMs: Dist;
  };
  delivery: {
    expected: number;
    delivered: number;
    lost: number;
    /** Writes no subscriber ever saw. */
    lostEverywhere: number;
    /**
     * Seqs no subscriber saw (up to 10), with when their write and the writes
     * of the neighbouring seqs were answered: an answer after the next seq's
     * suggests the events were published out of seq order, and the gateway
     * drops any seq lower than one it already sent.
     */
    missing: {
      seq: number;
      /** The write's index, if it can be told; warm-up writes are not tracked. */
      write: number | 'warm-up' | 'unknown';
      /** ms after the first write was sent; null if not a tracked, answered write. */
      answeredMs: number | null;
      previousSeqAnsweredMs: number | null;
      nextSeqAnsweredMs: number | null;
    }[];
    /** Subscribers missing at least one write. */
    clientsMissing: number;
    duplicates: number;
    outOfOrder: number;
    otherEvents: number;
    clientErrors: number;
    unexpectedCloses: Record<string, number>;
    drainMs: number;
  };
  latencyMs: {
    /** Receipt − the event's `timestamp` (server clock when the change was recorded in its transaction). */
    commitToReceipt: Dist;
    /** Receipt − the writer's send (an upper bound: includes the whole HTTP write). */
    sendToReceipt: Dist;
    /** Receipt − the writer's HTTP response (negative: the event beat the response). */
    responseToReceipt: Dist;
    /** Per write: commit → the first subscriber's receipt. */
    commitToFirst: Dist;
    /** Per write: first → last subscriber's receipt (how long one event's fan-out takes to land). */
    fanoutSpan: Dist;
    /** p99 of commit → receipt for the writes due in each second of the run. */
    p99BySecond: number[];
  };
  cpu: {
    /** Cores' worth of CPU over the measured window. */
    server: number;
    bench: number;
    system: number;
    others: number;
    /** Event-loop utilisation of this (the clients') process, 0–1. */
    benchEventLoopUtilization: number;
    benchLoopDelayP99Ms: number;
    benchLoopDelayMaxMs: number;
    serverRssMb: number;
    /**
     * Server CPU (user + system) per acknowledged write, ms: the write itself
     * plus its fan-out to every subscriber. Unlike latency, barely moved by
     * other processes competing for the cores, so 1000 / this is what one
     * core could sustain.
     */
    serverCpuMsPerWrite: number;
    /** This process's CPU per delivered event, µs (the subscribers' side). */
    benchCpuUsPerDelivery: number;
  };
  loadavg: [number, number, number];
  clockDriftMs: number;
  window: { fromUs: number; toUs: number };
  noisy: boolean;
  pass: boolean;
  verdict: string;
  profile?: ProfileSummary;
}

async function serverRssMb(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    return kb / 1024;
  } catch {
    return NaN;
  }
}

async function runOnce(
  server: ServerProcess,
  apiKey: string,
  config: Config,
  runNo: number,
): Promise<RunResult> {
  const { clients, rate } = config;
  const writes = Math.max(1, Math.round(rate * options.seconds));
  const prefix = `rt${runNo}-`;

  if (options.quietWaitSeconds > 0) {
    const busy = await waitForQuiet(options.quietCores, options.quietWaitSeconds);
    log(`  machine busy before run: ${busy.toFixed(2)} cores`);
  }

  const subscribers = new Subscribers(prefix, writes);
  const openStart = clock();
  await subscribers.open(server.url, apiKey, clients);
  const openSeconds = (clock() - openStart) / 1000;
  log(`  ${clients} subscribers connected and subscribed in ${openSeconds.toFixed(1)} s`);

  const warmupWrites = Math.round(rate * options.warmupSeconds);
  if (warmupWrites > 0) {
    const warmup = new Writer(server.url, apiKey, `rt${runNo}w-`, warmupWrites);
    await warmup.run(rate);
    warmup.close();
    await sleep(1_000);
  }

  realign();
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const system0 = await systemCpu();
  const server0 = await server.cpuSeconds();
  const hr0 = Number(process.hrtime.bigint() / 1000n);
  const wall0 = clock();

  const writer = new Writer(server.url, apiKey, prefix, writes);
  log(`  writing ${writes} entities at ${rate}/s …`);
  await writer.run(rate, options.maxLagSeconds * 1000);

  const wall1 = clock();
  const hr1 = Number(process.hrtime.bigint() / 1000n);
  const server1 = await server.cpuSeconds();
  const system1 = await systemCpu();
  const cpu1 = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0);
  loopDelay.disable();
  const rss = await serverRssMb(server.pid);
  const window = (wall1 - wall0) / 1000;

  const ok: number[] = [];
  const failed: Record<string, number> = {};
  const attempted = writes - writer.notSent;
  for (let i = 0; i < attempted; i++) {
    const status = writer.status[i]!;
    if (status === 201) ok.push(i);
    else failed[String(status)] = (failed[String(status)] ?? 0) + 1;
  }

  // Wait for stragglers: every subscriber should hold every acknowledged write.
  const expected = clients * ok.length;
  const drainStart = clock();
  const countDelivered = () => {
    let delivered = 0;
    for (let c = 0; c < clients; c++) {
      const counts = subscribers.counts[c]!;
      for (const i of ok) if (counts[i]! > 0) delivered += 1;
    }
    return delivered;
  };
  while (clock() - drainStart < options.drainMs && subscribers.unique < expected) await sleep(50);
  const drainMs = clock() - drainStart;
  const drift = realign();
  await sleep(200); // late duplicates, if any, would land now
  const delivered = countDelivered();

  // Writes nobody saw: the seqs missing from what arrived (gaps), each paired
  // with the acknowledged write no subscriber got, and when it and its seq
  // neighbours were answered. The server publishes before it answers, so an
  // answer after the next seq's suggests the two were published out of order.
  const missing: RunResult['delivery']['missing'] = [];
  const seen = subscribers.seen();
  latestSeq = Math.max(latestSeq, seen.at(-1)?.seq ?? 0);
  const measured = seen.filter((entry) => entry.index >= 0);
  if (measured.length > 0) {
    const bySeq = new Map(seen.map((entry) => [entry.seq, entry.index]));
    const lostWrites = ok.filter((i) => subscribers.eventAt[i] === 0);
    const gaps: number[] = [];
    for (let seq = seen[0]!.seq + 1; seq < seen[seen.length - 1]!.seq; seq++) {
      if (!bySeq.has(seq)) gaps.push(seq);
    }
    const firstMeasured = measured[0]!.seq;
    const measuredGaps = gaps.filter((seq) => seq > firstMeasured);
    const paired = measuredGaps.length === lostWrites.length;
    const answered = (index: number | undefined) =>
      index !== undefined && index >= 0 && writer.answered[index]
        ? writer.answered[index]! - writer.sent[0]!
        : null;
    for (const seq of gaps.slice(0, 10)) {
      const k = measuredGaps.indexOf(seq);
      missing.push({
        seq,
        write: seq < firstMeasured ? 'warm-up' : paired && k >= 0 ? lostWrites[k]! : 'unknown',
        answeredMs: paired && k >= 0 ? answered(lostWrites[k]) : null,
        previousSeqAnsweredMs: answered(bySeq.get(seq - 1)),
        nextSeqAnsweredMs: answered(bySeq.get(seq + 1)),
      });
    }
  }

  // Latencies over every (subscriber, acknowledged write) delivered.
  const commit = new Float64Array(delivered);
  const sendTo = new Float64Array(delivered);
  const responseTo = new Float64Array(delivered);
  const first = new Float64Array(ok.length).fill(Infinity);
  const last = new Float64Array(ok.length).fill(-Infinity);
  const seconds = Math.ceil(options.seconds) + 1;
  const bySecond: number[][] = Array.from({ length: seconds }, () => []);
  const start = writer.due[0]!;
  let k = 0;
  let clientsMissing = 0;
  for (let c = 0; c < clients; c++) {
    const received = subscribers.received[c]!;
    const counts = subscribers.counts[c]!;
    let missing = false;
    for (let j = 0; j < ok.length; j++) {
      const i = ok[j]!;
      if (counts[i] === 0) {
        missing = true;
        continue;
      }
      const t = received[i]!;
      const latency = t - subscribers.eventAt[i]!;
      commit[k] = latency;
      sendTo[k] = t - writer.sent[i]!;
      responseTo[k] = t - writer.answered[i]!;
      k += 1;
      if (t < first[j]!) first[j] = t;
      if (t > last[j]!) last[j] = t;
      bySecond[Math.min(seconds - 1, Math.floor((writer.due[i]! - start) / 1000))]!.push(latency);
    }
    if (missing) clientsMissing += 1;
  }
  const toFirst: number[] = [];
  const span: number[] = [];
  let lostEverywhere = 0;
  for (let j = 0; j < ok.length; j++) {
    if (first[j] === Infinity) {
      lostEverywhere += 1;
      continue;
    }
    toFirst.push(first[j]! - subscribers.eventAt[ok[j]!]!);
    span.push(last[j]! - first[j]!);
  }

  // Answers spaced 1/rate apart when the server keeps up; further apart when it cannot.
  let firstAnswer = Infinity;
  let lastAnswer = -Infinity;
  for (const i of ok) {
    firstAnswer = Math.min(firstAnswer, writer.answered[i]!);
    lastAnswer = Math.max(lastAnswer, writer.answered[i]!);
  }
  const completedRate = ok.length > 1 ? ((ok.length - 1) * 1000) / (lastAnswer - firstAnswer) : 0;
  const offeredRate =
    attempted > 1 ? ((attempted - 1) * 1000) / (writer.sent[attempted - 1]! - writer.sent[0]!) : 0;
  const http = new Float64Array(ok.map((i) => writer.answered[i]! - writer.sent[i]!));
  const lag = new Float64Array(attempted);
  for (let i = 0; i < attempted; i++) lag[i] = writer.sent[i]! - writer.due[i]!;

  const serverCores = (server1 - server0) / window;
  const benchCores = (cpu1.user + cpu1.system) / 1e6 / window;
  const systemCores = busyCores(system0, system1);
  const others = Math.max(0, systemCores - serverCores - benchCores);
  const unexpectedCloses = Object.fromEntries(
    [...subscribers.unexpectedCloses].map(([code, n]) => [String(code), n]),
  );

  const latency = {
    commitToReceipt: dist(commit),
    sendToReceipt: dist(sendTo),
    responseToReceipt: dist(responseTo),
    commitToFirst: dist(new Float64Array(toFirst)),
    fanoutSpan: dist(new Float64Array(span)),
    p99BySecond: bySecond
      .filter((values) => values.length > 0)
      .map((values) => dist(new Float64Array(values)).p99),
  };
  const lost = expected - delivered;
  const noisy = others > 0.3;
  const reasons: string[] = [];
  if (!(latency.commitToReceipt.p99 < options.p99Ms))
    reasons.push(`p99 ${latency.commitToReceipt.p99.toFixed(1)} ms ≥ ${options.p99Ms} ms`);
  if (lost > 0) reasons.push(`${lost} deliveries lost`);
  if (subscribers.duplicates > 0) reasons.push(`${subscribers.duplicates} duplicates`);
  if (writer.notSent > 0) {
    reasons.push(
      `server fell ${options.maxLagSeconds} s behind; writer stopped after ${attempted} of ${writes} writes`,
    );
  }
  if (Object.keys(failed).length > 0) reasons.push(`${attempted - ok.length} writes failed`);
  if (completedRate < rate * 0.95)
    reasons.push(`completed ${completedRate.toFixed(0)} writes/s < 95% of ${rate}`);
  if (Object.keys(unexpectedCloses).length > 0) reasons.push('subscribers closed by the server');
  const pass = reasons.length === 0;

  writer.close();
  await subscribers.close();

  return {
    config,
    seconds: options.seconds,
    openSeconds,
    writes: {
      planned: writes,
      notSent: writer.notSent,
      attempted,
      ok: ok.length,
      failed,
      offeredRate,
      completedRate,
      httpMs: dist(http),
      scheduleLagMs: dist(lag),
    },
    delivery: {
      expected,
      delivered,
      lost,
      lostEverywhere,
      missing,
      clientsMissing,
      duplicates: subscribers.duplicates,
      outOfOrder: subscribers.outOfOrder,
      otherEvents: subscribers.other,
      clientErrors: subscribers.errors,
      unexpectedCloses,
      drainMs,
    },
    latencyMs: latency,
    cpu: {
      server: serverCores,
      bench: benchCores,
      system: systemCores,
      others,
      benchEventLoopUtilization: elu.utilization,
      benchLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      benchLoopDelayMaxMs: loopDelay.max / 1e6,
      serverRssMb: rss,
      serverCpuMsPerWrite: ok.length ? ((server1 - server0) * 1000) / ok.length : NaN,
      benchCpuUsPerDelivery: delivered ? (cpu1.user + cpu1.system) / delivered : NaN,
    },
    loadavg: loadavg() as [number, number, number],
    clockDriftMs: drift,
    window: { fromUs: hr0, toUs: hr1 },
    noisy,
    pass,
    verdict: pass ? 'PASS' : `MISS (${reasons.join('; ')})`,
  };
}

/** The highest seq any subscriber has seen so far. */
let latestSeq = 0;

interface ResumeCheck {
  fromSeq: number;
  latestSeq: number;
  /** Events a client resuming after fromSeq should get (the gateway replays up to 10,000). */
  expected: number;
  received: number;
  inOrder: boolean;
  /** Seqs after fromSeq that the replay never sent (first 10). */
  skipped: number[];
  /** The first seqs in the order they arrived. */
  firstSeqs: number[];
  pass: boolean;
}

/**
 * Resume from a seq just below a power of ten, so the replayed seqs differ in
 * digit count: every one after it should arrive, in seq order, exactly once.
 */
async function resumeCheck(
  server: ServerProcess,
  apiKey: string,
): Promise<ResumeCheck | undefined> {
  let power = 1;
  while (power * 10 <= latestSeq) power *= 10;
  if (power < 10) return undefined;
  const fromSeq = power - 5;
  const replayed = await replayAfter(server.url, apiKey, fromSeq);
  const seqs = replayed.map((event) => event.seq);
  const expected = Math.min(latestSeq - fromSeq, 10_000);
  const got = new Set(seqs);
  const skipped: number[] = [];
  for (let seq = fromSeq + 1; seq <= fromSeq + expected && skipped.length < 10; seq++) {
    if (!got.has(seq)) skipped.push(seq);
  }
  const inOrder = seqs.every((seq, i) => i === 0 || seq > seqs[i - 1]!);
  return {
    fromSeq,
    latestSeq,
    expected,
    received: seqs.length,
    inOrder,
    skipped,
    firstSeqs: seqs.slice(0, 8),
    pass: inOrder && skipped.length === 0 && seqs.length >= expected,
  };
}

// ── report ──────────────────────────────────────────────────────────────────

function log(line = ''): void {
  process.stdout.write(`${line}\n`);
}

const f = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const distLine = (d: Dist) =>
  `p50 ${f(d.p50)}  p90 ${f(d.p90)}  p95 ${f(d.p95)}  p99 ${f(d.p99)}  p99.9 ${f(d.p999)}  max ${f(d.max)}  (mean ${f(d.mean)}, n ${d.n.toLocaleString('en-US')})`;

function printRun(r: RunResult): void {
  const { writes: w, delivery: d, latencyMs: l, cpu } = r;
  log(
    `  writes       ${w.ok}/${w.attempted} ok${w.notSent ? ` (${w.notSent} of ${w.planned} not sent: server too far behind)` : ''}${Object.keys(w.failed).length ? `, failed ${JSON.stringify(w.failed)}` : ''}; offered ${f(w.offeredRate)}/s, completed ${f(w.completedRate)}/s`,
  );
  log(`  write HTTP   ${distLine(w.httpMs)}`);
  log(
    `  send lag     p99 ${f(w.scheduleLagMs.p99)}  max ${f(w.scheduleLagMs.max)} ms (writer late against its schedule)`,
  );
  log(
    `  deliveries   ${d.delivered.toLocaleString('en-US')}/${d.expected.toLocaleString('en-US')}; lost ${d.lost} (${d.lostEverywhere} writes unseen by all, ${d.clientsMissing} clients missing some); duplicates ${d.duplicates}; out of order ${d.outOfOrder}; drain ${f(d.drainMs, 0)} ms`,
  );
  for (const m of d.missing) {
    const when = (ms: number | null) => (ms === null ? '—' : `${f(ms)} ms`);
    log(
      `  missing      seq ${m.seq} (write ${typeof m.write === 'number' ? `#${m.write}` : m.write}) reached no subscriber; answered at ${when(m.answeredMs)}, seq ${m.seq - 1} at ${when(m.previousSeqAnsweredMs)}, seq ${m.seq + 1} at ${when(m.nextSeqAnsweredMs)}`,
    );
  }
  if (Object.keys(d.unexpectedCloses).length || d.clientErrors) {
    log(`  closes       ${JSON.stringify(d.unexpectedCloses)}; client errors ${d.clientErrors}`);
  }
  log(`  latency ms   commit→receipt    ${distLine(l.commitToReceipt)}`);
  log(`               send→receipt      ${distLine(l.sendToReceipt)}`);
  log(`               response→receipt  ${distLine(l.responseToReceipt)}`);
  log(`               commit→1st client ${distLine(l.commitToFirst)}`);
  log(`               fan-out span      ${distLine(l.fanoutSpan)}`);
  log(`  p99 by sec   ${l.p99BySecond.map((v) => f(v, 0)).join(' ')}`);
  log(
    `  cpu (cores)  server ${f(cpu.server, 2)}  bench ${f(cpu.bench, 2)}  others ${f(cpu.others, 2)}  system ${f(cpu.system, 2)}/${CORES}; bench loop util ${f(cpu.benchEventLoopUtilization * 100, 0)}%, loop delay p99 ${f(cpu.benchLoopDelayP99Ms)} max ${f(cpu.benchLoopDelayMaxMs)} ms; server RSS ${f(cpu.serverRssMb, 0)} MB`,
  );
  log(
    `  cpu per unit server ${f(cpu.serverCpuMsPerWrite, 2)} ms per write (one core sustains ≈ ${f(1000 / cpu.serverCpuMsPerWrite, 0)} writes/s at ${r.config.clients} subscribers); clients ${f(cpu.benchCpuUsPerDelivery, 1)} µs per delivery`,
  );
  log(
    `  load avg     ${r.loadavg.map((v) => v.toFixed(2)).join(' ')}; clock drift ${f(r.clockDriftMs, 3)} ms${r.noisy ? '  ⚠ NOISY: other processes used > 0.3 cores' : ''}`,
  );
  log(`  verdict      ${r.verdict}`);
}

function printProfile(p: ProfileSummary): void {
  log(`  server CPU profile: ${f(p.busyMs / 1000, 2)} s busy in ${f(p.windowMs / 1000, 2)} s`);
  for (const a of p.areas.slice(0, 12)) log(`    ${f(a.share * 100).padStart(5)}%  ${a.area}`);
  log('  top functions (self time):');
  for (const fn of p.functions) log(`    ${f(fn.share * 100).padStart(5)}%  ${fn.fn}`);
}

// ── main ────────────────────────────────────────────────────────────────────

function parseSweep(spec: string): Config[] {
  return spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const match = /^(\d+)@(\d+(?:\.\d+)?)$/.exec(part);
      if (!match)
        throw new Error(`BENCH_SWEEP entries are clients@rate, e.g. 1000@200; got "${part}"`);
      return { clients: Number(match[1]), rate: Number(match[2]) };
    });
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-bench-rt-'));
  const profileDir = options.profile ? join(dataDir, 'profiles') : undefined;
  const ref =
    options.serverRef || options.gatewayRef
      ? exportServer(options.serverRef, options.gatewayRef)
      : undefined;
  let server: ServerProcess | undefined;
  let database: Awaited<ReturnType<typeof createDatabase>> | undefined;
  // Interrupted: still stop the server and remove the data folder.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void (async () => {
        await server?.stop();
        await ref?.cleanup();
        await database?.drop();
        await rm(dataDir, { recursive: true, force: true });
        process.exit(130);
      })();
    });
  }
  const results: RunResult[] = [];
  let resume: ResumeCheck | undefined;
  try {
    log(
      `Realtime gateway benchmark — ${CORES} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GB, node ${process.version}, load ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}`,
    );
    log(
      `server: engram serve (${options.serverRef ? `packages/server/src at ${options.serverRef}` : 'working tree'}${options.gatewayRef ? `, gateway.ts at ${options.gatewayRef}` : ''}), ${options.databaseServer ? 'PostgreSQL (a fresh database on BENCH_DATABASE_URL)' : `embedded PGlite in ${dataDir}`}${options.profile ? ', CPU-profiled' : ''}`,
    );
    log(
      `target: p99 commit→receipt < ${options.p99Ms} ms with ${TARGET.clients} subscribers at ${TARGET.rate} writes/s; runs of ${options.seconds} s after ${options.warmupSeconds} s warm-up`,
    );
    if (options.databaseServer) database = await createDatabase(options.databaseServer);
    const account = await prepareAccount(dataDir, database?.url);
    server = await startServer({
      dataDir,
      databaseUrl: database?.url,
      main: ref?.main,
      profileDir,
    });
    log(`server pid ${server.pid} at ${server.url}`);

    const planned = options.sweep
      ? parseSweep(options.sweep)
      : [{ clients: options.clients, rate: options.rate }];
    let runNo = 0;
    const run = async (config: Config) => {
      runNo += 1;
      log('');
      log(`── run ${runNo}: ${config.clients} subscribers, ${config.rate} writes/s ──`);
      const result = await runOnce(server!, account.apiKey, config, runNo);
      printRun(result);
      results.push(result);
      await sleep(2_000);
      return result;
    };
    for (const config of planned) await run(config);

    const first = results[0]!;
    if (!options.sweep && options.autoSweep && !first.pass) {
      log('');
      log('The configuration missed; sweeping lower loads to find where it holds.');
      for (let rate = first.config.rate / 2; rate >= 10; rate /= 2) {
        if ((await run({ clients: first.config.clients, rate })).pass) break;
      }
      for (
        let clients = Math.floor(first.config.clients / 2);
        clients >= 50;
        clients = Math.floor(clients / 2)
      ) {
        if ((await run({ clients, rate: first.config.rate })).pass) break;
      }
      // The write path alone: what one subscriber sees at the full rate.
      await run({ clients: 1, rate: first.config.rate });
    }

    if (process.env.BENCH_RESUME_CHECK !== '0') {
      resume = await resumeCheck(server, account.apiKey).catch(() => undefined);
      if (resume) {
        log('');
        log(
          `resume check: a client resuming after seq ${resume.fromSeq} (latest ${resume.latestSeq}) got ${resume.received} of ${resume.expected} events, ${resume.inOrder ? 'in seq order' : 'NOT in seq order'}; first: ${resume.firstSeqs.join(', ')}${resume.skipped.length ? `; skipped: ${resume.skipped.join(', ')}…` : ''} — ${resume.pass ? 'PASS' : 'FAIL'}`,
        );
      }
    }
  } finally {
    const profilePath = await server?.stop();
    if (profilePath) {
      for (const [i, r] of results.entries()) {
        r.profile = await summarizeProfile(profilePath, r.window.fromUs, r.window.toUs);
        log('');
        log(
          `── run ${i + 1} (${r.config.clients}@${r.config.rate}): where the server's time went ──`,
        );
        printProfile(r.profile);
      }
    }
    await ref?.cleanup();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }

  log('');
  log('summary (latency: commit → receipt, ms)');
  log(
    '  subscribers  writes/s  completed/s    p50    p95    p99    max   lost  dup  server cores  server ms/write  bench cores  others  verdict',
  );
  for (const r of results) {
    const l = r.latencyMs.commitToReceipt;
    log(
      `  ${String(r.config.clients).padStart(11)}  ${String(r.config.rate).padStart(8)}  ${f(r.writes.completedRate).padStart(11)}  ${f(l.p50).padStart(5)}  ${f(l.p95).padStart(5)}  ${f(l.p99).padStart(5)}  ${f(l.max).padStart(5)}  ${String(r.delivery.lost).padStart(5)}  ${String(r.delivery.duplicates).padStart(3)}  ${f(r.cpu.server, 2).padStart(12)}  ${f(r.cpu.serverCpuMsPerWrite, 2).padStart(15)}  ${f(r.cpu.bench, 2).padStart(11)}  ${f(r.cpu.others, 2).padStart(6)}  ${r.verdict}${r.noisy ? ' (noisy)' : ''}`,
    );
  }
  if (options.out) {
    await writeFile(
      options.out,
      JSON.stringify(
        {
          at: new Date().toISOString(),
          id: randomUUID(),
          database: options.databaseServer ? 'postgres' : 'pglite',
          options: { ...options, databaseServer: options.databaseServer ? '(set)' : '' },
          results,
          resume,
        },
        null,
        2,
      ),
    );
    log(`results written to ${options.out}`);
  }
  const target = results.find(
    (r) => r.config.clients === TARGET.clients && r.config.rate === TARGET.rate,
  );
  if (target)
    log(
      `target (${TARGET.clients} subscribers @ ${TARGET.rate} writes/s, p99 < ${options.p99Ms} ms): ${target.verdict}`,
    );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
