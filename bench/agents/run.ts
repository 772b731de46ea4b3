/**
 * Many-agents benchmark (issue 37): C MCP clients of both protocol eras
 * calling tools back to back (a closed loop) against one real `engram serve`
 * process, on one account and on C accounts, with the agents' mix of tools on
 * a seeded graph of BENCH_ENTITIES entities per account.
 *
 *   npm run bench:agents
 *   BENCH_DB=postgres BENCH_CLIENTS=50 npx tsx bench/agents/run.ts
 *
 * Options (environment): BENCH_DB (pglite | postgres | both; default both),
 * BENCH_DATABASE_URL (the PostgreSQL server to create the fresh database on),
 * BENCH_CLIENTS (C, default 20), BENCH_ENTITIES (per account, default 10,000),
 * BENCH_SECONDS (measured seconds per phase, default 20),
 * BENCH_WARMUP_SECONDS (unmeasured calls before each phase, default 3),
 * BENCH_RATE (phase 5's calls/s for all agents together, default 100),
 * BENCH_PHASES (which phases to run, e.g. "mixed,paced"; default all),
 * BENCH_PROFILE (a folder: the server writes a V8 CPU profile there when it stops),
 * BENCH_NODE_ARGS (more Node flags for the server, for an A/B of a setting).
 *
 * Phases, each on the same server: (1) mixed, one account, C clients;
 * (2) mixed, C accounts, one client each; (3) writes only, one account, C
 * clients; (4) reads only, one account, C clients; (5) the mix of (1) paced:
 * agents with think time, BENCH_RATE calls/s together (each agent's calls
 * start at random times, a Poisson process, but never overlap). Half the clients of each
 * phase are 2025-era (1.x SDK, a session), half 2026-era (v2 SDK, stateless).
 * Per phase: per-tool calls, calls/s, p50, p99 and errors; the server's own
 * CPU per call (its process from /proc/<pid>/stat, and PostgreSQL's backends),
 * so the figure does not depend on the load generator sharing the cores.
 * See bench/README.md ("Many agents").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectEra, type Era, type EraClient } from '../../packages/server/src/test/mcp-client.js';
import { cpuBetween, cpuNow } from '../graph/bench-account.js';
import { batches, buildWorkload, pick, rng, type Workload } from '../mcp/workload.js';
import {
  createDatabase,
  prepareAccounts,
  startServer,
  type ServerProcess,
} from '../realtime/server.js';

// ── options ─────────────────────────────────────────────────────────────────

type DbKind = 'pglite' | 'postgres';

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw.replaceAll('_', ''));
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

function readOptions() {
  const which = process.env.BENCH_DB ?? 'both';
  if (!['pglite', 'postgres', 'both'].includes(which)) {
    throw new Error('BENCH_DB must be pglite, postgres or both');
  }
  return {
    databases: (which === 'both' ? ['pglite', 'postgres'] : [which]) as DbKind[],
    postgresUrl:
      process.env.BENCH_DATABASE_URL ??
      process.env.TEST_DATABASE_URL ??
      'postgres://postgres@127.0.0.1:5432/test',
    clients: positiveInteger('BENCH_CLIENTS', 20),
    entities: positiveInteger('BENCH_ENTITIES', 10_000),
    seconds: positiveInteger('BENCH_SECONDS', 20),
    warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 3),
    rate: positiveInteger('BENCH_RATE', 100),
    phases: (process.env.BENCH_PHASES ?? 'mixed,accounts,writes,reads,paced')
      .split(',')
      .map((name) => name.trim()),
  };
}

const options = readOptions();

/** The issue's targets hold for PostgreSQL, one account, 50 agents; below that they are shown as info. */
const TARGET_CLIENTS = 50;
const WRITES_P99_TARGET_MS = 50;
const WRITES_PER_SECOND_TARGET = 500;
/** "Reads unaffected by writes": a read tool's p50 and p99 in the mixed phase within this factor of reads-only. */
const READS_UNAFFECTED_FACTOR = 1.5;
/** Seeding accounts at once: the server, not the seeder, is what limits it. */
const SEED_CONCURRENCY = 4;
/** Pause after a failed call, so a client whose connection is gone does not spin the cores. */
const ERROR_PAUSE_MS = 10;

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

// ── the mix ─────────────────────────────────────────────────────────────────

const WRITE_TOOLS = new Set(['add_observations', 'create_entities']);

/** Shares of each tool, summing to 1; `recall` takes 5 points from search_nodes when the server has it. */
type Mix = [tool: string, share: number][];

function mixes(hasRecall: boolean): Record<'mixed' | 'writes' | 'reads', Mix> {
  const search: Mix = hasRecall
    ? [
        ['search_nodes', 0.35],
        ['recall', 0.05],
      ]
    : [['search_nodes', 0.4]];
  const reads: Mix = [...search, ['open_nodes', 0.3]];
  return {
    mixed: [...search, ['open_nodes', 0.3], ['add_observations', 0.2], ['create_entities', 0.1]],
    // The mixed phase's writes in the same proportion (2 : 1).
    writes: [
      ['add_observations', 2 / 3],
      ['create_entities', 1 / 3],
    ],
    // The mixed phase's reads in the same proportion, scaled to 1.
    reads: reads.map(([tool, share]) => [tool, share / 0.7]),
  };
}

function chooseTool(mix: Mix, random: () => number): string {
  let roll = random();
  for (const [tool, share] of mix) {
    roll -= share;
    if (roll < 0) return tool;
  }
  return mix[mix.length - 1]![0];
}

/** The arguments an agent sends: the same shapes bench/mcp measures one at a time. */
function argumentsFor(
  tool: string,
  random: () => number,
  workload: Workload,
  unique: string,
): Record<string, unknown> {
  switch (tool) {
    case 'search_nodes':
      // A rare term: ~10 entities carry it.
      return { query: pick(random, workload.searchTerms) };
    case 'recall':
      // Words of a seeded observation, as an agent asks about something it wrote.
      return {
        query: pick(random, workload.entities).observations[0]!.replace('Seeded note on ', ''),
      };
    case 'open_nodes':
      return { names: Array.from({ length: 5 }, () => pick(random, workload.entities).name) };
    case 'add_observations':
      return {
        observations: [
          {
            entityName: pick(random, workload.entities).name,
            contents: [`Agent note ${unique}`],
          },
        ],
      };
    case 'create_entities':
      return {
        entities: [
          {
            name: `agent-${unique}`,
            entityType: 'concept',
            observations: [`Created by agent call ${unique}`, 'Second observation'],
          },
        ],
      };
    default:
      throw new Error(`no arguments for ${tool}`);
  }
}

// ── accounts and server ─────────────────────────────────────────────────────

/**
 * bench/realtime's `engram serve` child (its CPU readable from /proc), with
 * the limits a deployment serving C agents on one account would raise: the
 * sessions per account (else the oldest idle session is closed to make room,
 * and its agent's next call fails) and the per-account request rate.
 * startServer passes this process's environment on.
 */
async function startBenchServer(dataDir: string, databaseUrl: string): Promise<ServerProcess> {
  process.env.MCP_MAX_SESSIONS_PER_ACCOUNT = String(Math.max(20, options.clients * 2));
  process.env.MCP_MAX_SESSIONS = String(Math.max(2_000, options.clients * 4));
  process.env.API_RATE_LIMIT_PER_ACCOUNT_PER_MINUTE = '100000000';
  return startServer({
    dataDir,
    databaseUrl,
    profileDir: process.env.BENCH_PROFILE || undefined,
    nodeArgs: process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean),
  });
}

async function seed(client: EraClient, workload: Workload): Promise<void> {
  for (const batch of batches(workload.entities)) {
    await expectOk(client, 'create_entities', { entities: batch });
  }
  for (const batch of batches(workload.relations)) {
    await expectOk(client, 'create_relations', { relations: batch });
  }
}

async function expectOk(client: EraClient, tool: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
  if (result.isError) {
    const first = result.content[0];
    throw new Error(`${tool} failed: ${first && first.type === 'text' ? first.text : '?'}`);
  }
}

/** Runs `work` over `items`, `limit` at a time. */
async function inTurns<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

// ── one phase ───────────────────────────────────────────────────────────────

interface Agent {
  client: EraClient;
  era: Era;
}

interface ToolStats {
  calls: number;
  errors: number;
  /** ms of each successful call. */
  times: number[];
}

interface PhaseResult {
  title: string;
  key: 'mixed' | 'accounts' | 'writes' | 'reads' | 'paced';
  seconds: number;
  tools: Map<string, ToolStats>;
  eras: Map<Era, ToolStats>;
  errorMessages: Map<string, number>;
  /** Server CPU during the measured window, ms: its process, and PostgreSQL's processes. */
  serverCpuMs: number;
  postgresCpuMs: number | undefined;
  /** This process's CPU (the clients), ms. */
  benchCpuMs: number;
  loadBefore: number;
  loadAfter: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

function emptyStats(): ToolStats {
  return { calls: 0, errors: 0, times: [] };
}

/**
 * Every agent calls tools from `mix` back to back: unmeasured for the
 * warm-up, then for `seconds`. A call counts when it starts and ends inside
 * the measured window; a failure (a tool error or a refused request, such as
 * a 429) counts as an error of its tool, with its message.
 */
async function runPhase(
  key: PhaseResult['key'],
  title: string,
  agents: Agent[],
  workloads: Workload[],
  mix: Mix,
  server: ServerProcess,
  kind: DbKind,
  /** Calls per second of all agents together, with think time; without it, back to back. */
  rate?: number,
): Promise<PhaseResult> {
  const tools = new Map<string, ToolStats>(mix.map(([tool]) => [tool, emptyStats()]));
  const eras = new Map<Era, ToolStats>([
    ['legacy', emptyStats()],
    ['modern', emptyStats()],
  ]);
  const errorMessages = new Map<string, number>();
  const started = performance.now();
  const windowStart = started + options.warmupSeconds * 1000;
  const windowEnd = windowStart + options.seconds * 1000;
  const sleepUntil = (at: number) =>
    new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));
  const loop = async (agent: Agent, index: number) => {
    const random = rng(index * 7_919 + key.length * 104_729 + Date.now());
    const workload = workloads[index % workloads.length]!;
    // Paced: the next call is due an exponential think time after this one was due.
    const meanGapMs = rate ? (agents.length / rate) * 1000 : 0;
    let due = performance.now() + (rate ? -Math.log(1 - random()) * meanGapMs : 0);
    for (let call = 0; performance.now() < windowEnd; call++) {
      if (rate) {
        await sleepUntil(due);
        if (performance.now() >= windowEnd) break;
        due += -Math.log(1 - random()) * meanGapMs;
      }
      const tool = chooseTool(mix, random);
      const args = argumentsFor(tool, random, workload, `${key}-${kind}-${index}-${call}`);
      const callStart = performance.now();
      let failure: string | undefined;
      try {
        const result = (await agent.client.callTool({
          name: tool,
          arguments: args,
        })) as CallToolResult;
        if (result.isError) {
          const first = result.content[0];
          failure = `tool error: ${first && first.type === 'text' ? first.text : '?'}`;
        }
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      const callEnd = performance.now();
      if (callStart >= windowStart && callEnd <= windowEnd) {
        for (const stats of [tools.get(tool)!, eras.get(agent.era)!]) {
          stats.calls += 1;
          if (failure === undefined) stats.times.push(callEnd - callStart);
          else stats.errors += 1;
        }
        if (failure !== undefined) {
          const message = `${tool}, ${agent.era}: ${failure.replace(/\s+/g, ' ').slice(0, 200)}`;
          errorMessages.set(message, (errorMessages.get(message) ?? 0) + 1);
        }
      }
      if (failure !== undefined)
        await new Promise((resolve) => setTimeout(resolve, ERROR_PAUSE_MS));
    }
  };

  const finished = Promise.all(agents.map(loop));
  await sleepUntil(windowStart);
  const cpuStart = { server: await server.cpuSeconds(), rest: cpuNow() };
  const loadBefore = loadavg()[0]!;
  await sleepUntil(windowEnd);
  const cpuEnd = { server: await server.cpuSeconds(), rest: cpuNow() };
  const loadAfter = loadavg()[0]!;
  await finished;
  const rest = cpuBetween(cpuStart.rest, cpuEnd.rest);
  return {
    title,
    key,
    seconds: options.seconds,
    tools,
    eras,
    errorMessages,
    serverCpuMs: (cpuEnd.server - cpuStart.server) * 1000,
    postgresCpuMs: kind === 'postgres' && cpuEnd.rest.postgres.size > 0 ? rest.postgres : undefined,
    benchCpuMs: rest.app,
    loadBefore,
    loadAfter,
  };
}

// ── report ──────────────────────────────────────────────────────────────────

function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (ms >= 100) return ms.toFixed(0);
  if (ms >= 10) return ms.toFixed(1);
  return ms.toFixed(2);
}

const fmtRate = (count: number, seconds: number) =>
  (count / seconds).toLocaleString('en-US', {
    maximumFractionDigits: count / seconds < 100 ? 1 : 0,
  });

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (column === 0 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

function merge(stats: ToolStats[]): ToolStats {
  return {
    calls: stats.reduce((sum, item) => sum + item.calls, 0),
    errors: stats.reduce((sum, item) => sum + item.errors, 0),
    times: stats.flatMap((item) => item.times),
  };
}

function row(label: string, stats: ToolStats, seconds: number): string[] {
  const sorted = [...stats.times].sort((a, b) => a - b);
  return [
    label,
    stats.calls.toLocaleString('en-US'),
    fmtRate(stats.calls, seconds),
    fmtMs(percentile(sorted, 50)),
    fmtMs(percentile(sorted, 99)),
    stats.errors.toLocaleString('en-US'),
  ];
}

const ERA_LABEL: Record<Era, string> = {
  legacy: '2025-era clients (session)',
  modern: '2026-era clients (stateless)',
};

function printPhase(result: PhaseResult) {
  const { seconds } = result;
  const all = merge([...result.tools.values()]);
  const writes = merge(
    [...result.tools].filter(([tool]) => WRITE_TOOLS.has(tool)).map(([, stats]) => stats),
  );
  const reads = merge(
    [...result.tools].filter(([tool]) => !WRITE_TOOLS.has(tool)).map(([, stats]) => stats),
  );
  const perCall = (ms: number) => (all.calls > 0 ? `${(ms / all.calls).toFixed(2)} ms` : '–');
  console.log('');
  console.log(`### ${result.title}`);
  console.log('');
  const rows = [...result.tools].map(([tool, stats]) => row(tool, stats, seconds));
  if (writes.calls > 0 && reads.calls > 0) {
    rows.push(row('reads', reads, seconds), row('writes', writes, seconds));
  }
  rows.push(row('all', all, seconds));
  for (const [era, stats] of result.eras)
    if (stats.calls > 0) rows.push(row(ERA_LABEL[era], stats, seconds));
  console.log(table(['tool', 'calls', 'calls/s', 'p50 ms', 'p99 ms', 'errors'], rows));
  console.log('');
  console.log(
    `${fmtRate(all.calls, seconds)} calls/s in all, ${fmtRate(writes.calls, seconds)} writes/s, ${fmtRate(reads.calls, seconds)} reads/s over ${seconds} s;` +
      ` server CPU per call: app process ${perCall(result.serverCpuMs)}` +
      (result.postgresCpuMs !== undefined
        ? `, PostgreSQL ${perCall(result.postgresCpuMs)}, together ${perCall(result.serverCpuMs + result.postgresCpuMs)}`
        : '') +
      ` (the clients in the bench process: ${perCall(result.benchCpuMs)});` +
      ` server busy ${((result.serverCpuMs + (result.postgresCpuMs ?? 0)) / (seconds * 1000)).toFixed(2)} cores;` +
      ` load average ${result.loadBefore.toFixed(1)} → ${result.loadAfter.toFixed(1)}`,
  );
  if (result.errorMessages.size > 0) {
    console.log(`errors (${all.errors.toLocaleString('en-US')}):`);
    for (const [message, count] of [...result.errorMessages]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)) {
      console.log(`  ${String(count).padStart(6)} × ${message}`);
    }
  }
}

function verdicts(kind: DbKind, results: PhaseResult[]): string[] {
  const real = kind === 'postgres' && options.clients >= TARGET_CLIENTS;
  const judge = (ok: boolean) => (!real ? 'info' : ok ? 'PASS' : 'MISS');
  const phase = (key: PhaseResult['key']) => results.find((result) => result.key === key);
  const p = (stats: ToolStats | undefined, q: number) =>
    percentile(
      [...(stats?.times ?? [])].sort((a, b) => a - b),
      q,
    );
  const out = [
    `Targets of issue 37 (PostgreSQL, one account, ${TARGET_CLIENTS} agents)` +
      (real ? '' : `: this run is ${kind}, ${options.clients} clients — info, not a verdict`),
  ];
  const mixed = phase('mixed');
  for (const [name, result] of [
    ['mixed, back to back', mixed],
    [`mixed, paced at ${options.rate}/s`, phase('paced')],
  ] as const) {
    for (const tool of result ? WRITE_TOOLS : []) {
      const p99 = p(result!.tools.get(tool), 99);
      out.push(
        `  ${judge(p99 < WRITES_P99_TARGET_MS).padEnd(4)} ${name}, ${tool} p99 ${fmtMs(p99)} ms < ${WRITES_P99_TARGET_MS} ms`,
      );
    }
  }
  const writes = phase('writes');
  if (writes) {
    const written = merge([...writes.tools.values()]);
    const perSecond = (written.calls - written.errors) / writes.seconds;
    out.push(
      `  ${judge(perSecond >= WRITES_PER_SECOND_TARGET).padEnd(4)} writes only: ${fmtRate(written.calls - written.errors, writes.seconds)} successful writes/s ≥ ${WRITES_PER_SECOND_TARGET}`,
    );
  }
  const reads = phase('reads');
  for (const [tool, alone] of reads?.tools ?? []) {
    const inMix = mixed?.tools.get(tool);
    const ratios = [50, 99].map((q) => p(inMix, q) / p(alone, q));
    out.push(
      `  ${judge(ratios.every((ratio) => ratio <= READS_UNAFFECTED_FACTOR)).padEnd(4)} reads unaffected, ${tool}: p50 ${fmtMs(p(inMix, 50))} vs ${fmtMs(p(alone, 50))} ms alone (${ratios[0]!.toFixed(2)}×),` +
        ` p99 ${fmtMs(p(inMix, 99))} vs ${fmtMs(p(alone, 99))} ms (${ratios[1]!.toFixed(2)}×), each ≤ ${READS_UNAFFECTED_FACTOR}×`,
    );
  }
  const errors = results.reduce((sum, result) => sum + merge([...result.tools.values()]).errors, 0);
  out.push(
    `  ${judge(errors === 0).padEnd(4)} no failed calls in any phase: ${errors.toLocaleString('en-US')}`,
  );
  return out;
}

// ── main ────────────────────────────────────────────────────────────────────

async function connectAgents(baseUrl: string, apiKeys: string[]): Promise<Agent[]> {
  return Promise.all(
    apiKeys.map(async (apiKey, index) => {
      const era: Era = index % 2 === 0 ? 'legacy' : 'modern';
      return { era, client: await connectEra(era, baseUrl, apiKey) };
    }),
  );
}

async function runDatabase(kind: DbKind): Promise<string[]> {
  const C = options.clients;
  const label = kind === 'pglite' ? 'PGlite' : 'PostgreSQL';
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-bench-agents-'));
  const database = kind === 'postgres' ? await createDatabase(options.postgresUrl) : undefined;
  const agents: Agent[] = [];
  let server: ServerProcess | undefined;
  try {
    log(`── ${label}: ${database ? database.url : `PGlite in ${dataDir}`}`);
    // Account 0 is the shared one; accounts 1..C have one agent each (only phase 2 uses them).
    const perAccount = options.phases.includes('accounts');
    const accounts = await prepareAccounts(dataDir, database?.url ?? '', perAccount ? C + 1 : 1);
    server = await startBenchServer(dataDir, database?.url ?? '');
    log(
      `engram serve pid ${server.pid} at ${server.url}; ${accounts.length} accounts on the Team plan`,
    );

    const workload = buildWorkload(options.entities);
    const seedStarted = performance.now();
    await inTurns(accounts, SEED_CONCURRENCY, async (account) => {
      const seeder = await connectEra('legacy', server!.url, account.apiKey);
      try {
        await seed(seeder, workload);
      } finally {
        await seeder.close().catch(() => undefined);
      }
    });
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    log(
      `seeded ${accounts.length} accounts × ${workload.entities.length.toLocaleString('en-US')} entities` +
        ` (2 observations each) and ${workload.relations.length.toLocaleString('en-US')} relations in ${seedSeconds.toFixed(1)} s`,
    );

    const shared = await connectAgents(server.url, Array<string>(C).fill(accounts[0]!.apiKey));
    agents.push(...shared);
    const separate = perAccount
      ? await connectAgents(
          server.url,
          accounts.slice(1).map((account) => account.apiKey),
        )
      : [];
    agents.push(...separate);
    const { tools } = await shared[0]!.client.listTools();
    const hasRecall = tools.some((tool) => tool.name === 'recall');
    const mix = mixes(hasRecall);
    const erasLabel = `${Math.ceil(C / 2)} × 2025 session, ${Math.floor(C / 2)} × 2026 stateless`;
    const clientsLabel = `${C} clients (${erasLabel})`;
    log(
      `${agents.length} agents connected; recall ${hasRecall ? 'in the mix (5%)' : 'not offered'}`,
    );

    const results: PhaseResult[] = [];
    const phases: [PhaseResult['key'], string, Agent[], Mix, number?][] = [
      ['mixed', `1. Mixed, one account, ${clientsLabel} — ${label}`, shared, mix.mixed],
      [
        'accounts',
        `2. Mixed, ${C} accounts, one client each (${erasLabel}) — ${label}`,
        separate,
        mix.mixed,
      ],
      ['writes', `3. Writes only, one account, ${clientsLabel} — ${label}`, shared, mix.writes],
      ['reads', `4. Reads only, one account, ${clientsLabel} — ${label}`, shared, mix.reads],
      [
        'paced',
        `5. Mixed, one account, ${clientsLabel}, paced at ${options.rate} calls/s together — ${label}`,
        shared,
        mix.mixed,
        options.rate,
      ],
    ];
    for (const [key, title, phaseAgents, phaseMix, rate] of phases) {
      if (!options.phases.includes(key)) continue;
      log(`phase ${title} (${options.warmupSeconds} s warm-up, ${options.seconds} s measured)`);
      const result = await runPhase(
        key,
        title,
        phaseAgents,
        [workload],
        phaseMix,
        server,
        kind,
        rate,
      );
      results.push(result);
      printPhase(result);
      console.log('');
    }
    const lines = verdicts(kind, results);
    console.log('');
    for (const line of lines) console.log(line);
    return lines;
  } finally {
    await Promise.all(agents.map((agent) => agent.client.close().catch(() => undefined)));
    await server?.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const started = performance.now();
  log(
    `bench/agents: ${options.clients} clients, ${options.entities.toLocaleString('en-US')} entities per account,` +
      ` ${options.seconds} s per phase after ${options.warmupSeconds} s of warm-up, on ${options.databases.join(' and ')}`,
  );
  log(
    `node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GB, load ${loadavg()
      .map((value) => value.toFixed(1))
      .join(' ')}`,
  );
  const all: string[] = [];
  for (const kind of options.databases) {
    const lines = await runDatabase(kind);
    all.push('', `## ${kind}`, ...lines);
  }
  if (options.databases.length > 1) {
    console.log('');
    console.log('# Verdicts');
    for (const line of all) console.log(line);
  }
  console.log('');
  log(`elapsed ${((performance.now() - started) / 60_000).toFixed(1)} min`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
