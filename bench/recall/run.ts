/**
 * Recall benchmark (issue 32): the evaluation set in bench/recall/dataset/
 * (conversations stored turn by turn on their speakers, and a factual graph)
 * loaded through the REST API of a real `engram serve` on a fresh database and
 * a fresh account, then every question asked through `GET /api/recall`, scored
 * by where the observations that answer it come (recall@1/5/10), with the
 * characters returned and the latency; beside it, over the same stored texts,
 * Engram's entity search (what search_nodes does) and BM25 baselines.
 *
 *   npm run bench:recall                          # dev split, PGlite
 *   RECALL_SPLIT=all BENCH_DB=both npm run bench:recall
 *   RECALL_SCALE=1000,100000,1000000 npm run bench:recall   # latency mode
 *
 * Options (environment):
 *   BENCH_DB            pglite (default) | postgres | both
 *   BENCH_DATABASE_URL  PostgreSQL server (TEST_DATABASE_URL, else
 *                       postgres://postgres@127.0.0.1:5432/test); a database is
 *                       created there and dropped after
 *   RECALL_SPLIT        dev (default: what to tune on) | test (held back) | all
 *   RECALL_DATES        prefix (default: a turn is stored as "[8 May 2023] text") | none
 *   RECALL_LIMIT        results asked per question (default 10)
 *   RECALL_BASELINES    0 skips the baselines
 *   RECALL_MISSES       1 prints the dev questions recall misses at 10, with its first results
 *   RECALL_SCALE        latency mode: sizes of synthetic filler (observations), each on a fresh server
 *   RECALL_CALLS        latency mode: timed recall calls per size, over all the questions and then over
 *                       those of 8 to 20 words (default 200 each, after 20 warm-up)
 *   RECALL_BATCH        latency mode: observations per create_entities call (default 20000)
 *   RECALL_SETTLE_S     latency mode: seconds to wait after the fill (default 15)
 * Results print as Markdown tables and are written to bench/recall/results/
 * (ignored by git). See bench/recall/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  describeSet,
  loadEvalSet,
  memoryKey,
  storedText,
  type DatesMode,
  type EvalSet,
  type Question,
  type Split,
} from './data.js';
import { loadSynthetic, storeEvalSet } from './loader.js';
import {
  ABSTAIN_HEADER,
  abstainCells,
  abstainRow,
  breakdown,
  firstHit,
  floorSweep,
  isAnswerable,
  SWEEP_HEADER,
  type AbstainRow,
  pct,
  percentile,
  ROW_HEADER,
  rowCells,
  summarize,
  table,
  type Answer,
  type Row,
} from './metrics.js';
import { startEngram, type DbKind } from './server.js';
import {
  askEntitySearch,
  askRecall,
  bm25Systems,
  RecallMissing,
  type RecallResultRow,
} from './systems.js';

// ── options ─────────────────────────────────────────────────────────────────

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: T[],
  fallback: T,
): T {
  const chosen = (value ?? fallback) as T;
  if (!allowed.includes(chosen)) throw new Error(`${name} must be one of ${allowed.join(', ')}`);
  return chosen;
}

function positiveInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

const which = oneOf('BENCH_DB', process.env.BENCH_DB, ['pglite', 'postgres', 'both'], 'pglite');
const options = {
  databases: (which === 'both' ? ['pglite', 'postgres'] : [which]) as DbKind[],
  postgresUrl:
    process.env.BENCH_DATABASE_URL ??
    process.env.TEST_DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/test',
  split: oneOf('RECALL_SPLIT', process.env.RECALL_SPLIT, ['dev', 'test', 'all'], 'dev'),
  dates: oneOf<DatesMode>('RECALL_DATES', process.env.RECALL_DATES, ['prefix', 'none'], 'prefix'),
  limit: positiveInt('RECALL_LIMIT', 10),
  baselines: process.env.RECALL_BASELINES !== '0',
  misses: process.env.RECALL_MISSES === '1',
  scale: (process.env.RECALL_SCALE ?? '')
    .split(',')
    .filter((item) => item.trim())
    .map((item) => {
      const size = Number(item.trim().replaceAll('_', ''));
      if (!Number.isInteger(size) || size < 0) throw new Error('RECALL_SCALE: sizes are integers');
      return size;
    }),
  calls: positiveInt('RECALL_CALLS', 200),
  batch: positiveInt('RECALL_BATCH', 20_000),
  settleSeconds: Number(process.env.RECALL_SETTLE_S ?? 15),
};
const splits: Split[] = options.split === 'all' ? ['dev', 'test'] : [options.split];

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const machine = () => `load ${load()} (1/5/15 min) on ${cpus().length} cores`;

// ── evaluation mode ─────────────────────────────────────────────────────────

interface SystemResult {
  system: string;
  answers: Map<string, Answer>;
}

async function evaluate(kind: DbKind, set: EvalSet, questions: Question[]) {
  console.log(`\n## ${kind}: loading the set (${machine()})`);
  const engram = await startEngram(kind, options.postgresUrl);
  try {
    console.log(`server: ${engram.where}`);
    const loadSeconds = await storeEvalSet(engram.api, set, options.dates);
    console.log(
      `stored ${set.memories.length} observations in ${loadSeconds.toFixed(1)} s (${machine()})`,
    );
    const stored = set.memories.map((memory) => ({
      memory,
      text: storedText(memory, options.dates),
    }));
    const refByKey = new Map(
      stored.map(({ memory, text }) => [memoryKey(memory.entityName, text), memory.ref]),
    );
    const entityOfRef = new Map(set.memories.map((memory) => [memory.ref, memory.entityName]));

    const systems: SystemResult[] = [];
    if (options.baselines) {
      const documents = stored.map(({ memory, text }) => ({
        ref: memory.ref,
        entityName: memory.entityName,
        text,
      }));
      for (const [system, search] of Object.entries(bm25Systems(documents))) {
        const answers = new Map<string, Answer>();
        for (const q of questions) {
          const started = performance.now();
          const ranked = search(q.question, options.limit);
          answers.set(q.id, {
            refs: ranked.map((r) => r.ref),
            chars: ranked.reduce((sum, r) => sum + r.chars, 0),
            ms: performance.now() - started,
          });
        }
        systems.push({ system: `${system} (in the bench)`, answers });
      }
      const answers = new Map<string, Answer>();
      for (const q of questions)
        answers.set(q.id, await askEntitySearch(engram.api, q, options.limit, entityOfRef));
      systems.push({
        system: 'entity search (GET /api/entities?query=, a hit = the entity)',
        answers,
      });
    }

    let recall: SystemResult | undefined;
    let failure: unknown;
    const recallRaw = new Map<string, RecallResultRow[]>();
    const bestEffort = new Map<string, Answer>();
    try {
      const loadBefore = load();
      const answers = new Map<string, Answer>();
      for (const q of questions) {
        // A dated question goes with its range or its `now`; every question twice: abstaining (the default) and not.
        const time = { since: q.time?.since, until: q.time?.until, now: q.time?.now };
        const { results, ...answer } = await askRecall(
          engram.api,
          q.question,
          options.limit,
          refByKey,
          time,
        );
        answers.set(q.id, answer);
        recallRaw.set(q.id, results);
        const { results: _, ...anyway } = await askRecall(
          engram.api,
          q.question,
          options.limit,
          refByKey,
          { ...time, abstain: false },
        );
        bestEffort.set(q.id, anyway);
      }
      recall = { system: 'recall (GET /api/recall)', answers };
      console.log(`asked ${questions.length} questions (load ${loadBefore} → ${load()})`);
    } catch (error) {
      // The baselines are still printed; the failure is reported after them.
      failure = error;
    }
    if (recall) systems.unshift(recall);

    const report = print(kind, questions, systems);
    const abstaining = recall ? printAbstaining(kind, questions, recall.answers, bestEffort) : null;
    if (recall && options.misses) printMisses(questions, recall.answers, recallRaw);
    writeResult(`eval-${kind}`, {
      database: kind,
      split: options.split,
      dates: options.dates,
      limit: options.limit,
      loadSeconds,
      machine: machine(),
      set: describeSet(set),
      recallAvailable: Boolean(recall),
      report,
      abstaining,
      // Dev questions only: the test split's misses are not for reading.
      perQuestion: recall
        ? questions
            .filter((q) => q.split === 'dev')
            .map((q) => {
              const answer = recall.answers.get(q.id)!;
              const hit = firstHit(q, answer);
              return {
                id: q.id,
                firstHit: Number.isFinite(hit) ? hit : null,
                results: answer.refs.length,
                abstained: answer.abstained,
                confidence: bestEffort.get(q.id)?.confidences?.[0] ?? null,
                // Every best-effort result's, for trying cuts offline.
                confidences: bestEffort.get(q.id)?.confidences ?? [],
                firstHitAbstainFalse: (() => {
                  const anyway = bestEffort.get(q.id);
                  const at = anyway ? firstHit(q, anyway) : Infinity;
                  return Number.isFinite(at) ? at : null;
                })(),
                chars: answer.chars,
                ms: answer.ms,
              };
            })
        : undefined,
    });
    if (failure) throw failure;
  } finally {
    await engram.close();
  }
}

function print(kind: DbKind, questions: Question[], systems: SystemResult[]) {
  const report: Record<string, Record<string, Row[]>> = {};
  for (const split of splits) {
    const some = questions.filter((q) => q.split === split);
    report[split] = {};
    for (const { system, answers } of systems) report[split]![system] = breakdown(some, answers);
    const answerable = some.filter(isAnswerable);
    const unanswerableCount = some.filter((q) => q.category === 'unanswerable').length;
    const datedCount = some.filter((q) => q.kind === 'dated').length;
    console.log(
      `\n### ${kind}, ${split} split: ${answerable.length} answerable questions, ${datedCount} dated, ${unanswerableCount} unanswerable; limit ${options.limit}, dates ${options.dates}\n`,
    );
    const first = systems[0];
    if (first?.system.startsWith('recall')) {
      console.log(`${first.system}, by kind and category:\n`);
      console.log(table(ROW_HEADER, report[split]![first.system]!.map(rowCells)));
      console.log('');
    }
    const kinds = ['conversational', 'factual'] as const;
    console.log(
      table(
        [
          'system',
          'R@1',
          'R@5',
          'R@10',
          ...kinds.map((k) => `R@10 ${k}`),
          'chars mean',
          'results (unanswerable)',
        ],
        systems.map(({ system, answers }) => {
          const all = summarize('', answerable, answers);
          const byKind = kinds.map((k) =>
            summarize(
              '',
              answerable.filter((q) => q.kind === k),
              answers,
            ),
          );
          const none = some.filter((q) => q.category === 'unanswerable');
          const unanswerable = none.length
            ? summarize('', none, answers).resultsMean!.toFixed(1)
            : '–';
          return [
            system,
            pct(all.recall[1]),
            pct(all.recall[5]),
            pct(all.recall[10]),
            ...byKind.map((r) => pct(r.recall[10])),
            all.charsMean.toFixed(0),
            unanswerable,
          ];
        }),
      ),
    );
  }
  return report;
}

/**
 * Abstaining per split: R@5/R@10 of the answerable questions by default and
 * R@10 with abstain=false, the unanswerable questions left with no result,
 * the dated ones answered in range; on the dev split, the floor sweep the
 * floor was chosen from.
 */
function printAbstaining(
  kind: DbKind,
  questions: Question[],
  answers: Map<string, Answer>,
  bestEffort: Map<string, Answer>,
) {
  const rows: Record<string, AbstainRow[]> = {};
  for (const split of splits) {
    const some = questions.filter((q) => q.split === split);
    rows[split] = [
      abstainRow('all', some, answers, bestEffort),
      abstainRow(
        'unanswerable.json only',
        some.filter((q) => q.category !== 'unanswerable' || q.kind === 'abstain'),
        answers,
        bestEffort,
      ),
    ];
    console.log(`\n### ${kind}, ${split} split: abstaining (default) against abstain=false\n`);
    console.log(table(ABSTAIN_HEADER, rows[split]!.map(abstainCells)));
    if (split === 'dev') {
      console.log(
        `\n${kind}, dev split: a floor on the best result's confidence (from abstain=false)\n`,
      );
      console.log(
        table(
          SWEEP_HEADER,
          floorSweep(some, bestEffort, [0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]),
        ),
      );
    }
  }
  return rows;
}

/** For tuning: the dev questions recall missed at 10 and what it answered instead, and the dev unanswerable ones it answered. */
function printMisses(
  questions: Question[],
  answers: Map<string, Answer>,
  raw: Map<string, RecallResultRow[]>,
) {
  const missed = questions.filter(
    (q) => q.split === 'dev' && q.evidence.length > 0 && firstHit(q, answers.get(q.id)!) > 10,
  );
  console.log(`\n### dev questions missed at 10 (${missed.length})\n`);
  for (const q of missed) {
    console.log(`- ${q.id} [${q.category}] ${q.question}  (answer: ${q.answer})`);
    for (const result of raw.get(q.id)!.slice(0, 3)) {
      console.log(`    · ${result.entityName}: ${result.observation.slice(0, 110)}`);
    }
  }
  const answered = questions.filter(
    (q) => q.split === 'dev' && q.category === 'unanswerable' && raw.get(q.id)!.length > 0,
  );
  console.log(`\n### dev unanswerable questions that got results (${answered.length})\n`);
  for (const q of answered) {
    const results = raw.get(q.id)!;
    console.log(`- ${q.id} ${q.question}  (${results.length} results)`);
    for (const result of results.slice(0, 2)) {
      console.log(
        `    · ${result.confidence} ${result.entityName}: ${result.observation.slice(0, 100)}`,
      );
    }
  }
}

// ── latency mode ────────────────────────────────────────────────────────────

const SCALE_HEADER = [
  'filler',
  'observations',
  'fill',
  'p50 ms',
  'p95 ms',
  'p99 ms',
  'p50 / p95 / p99 ms, 8–20 words',
  'R@10 (split)',
  'load (1/5/15)',
];

/** A question of 8 to 20 words. */
const LONG_QUESTION = /^\s*(\S+\s+){7,19}\S+\s*$/;

async function latency(kind: DbKind, set: EvalSet, questions: Question[]) {
  const rows: string[][] = [];
  const results: unknown[] = [];
  const avoid = new Set(set.entities.map((entity) => entity.name.split(' ')[0]!.toLowerCase()));
  for (const size of options.scale) {
    console.log(
      `\n## ${kind}, ${size.toLocaleString('en')} synthetic observations + the set (${machine()})`,
    );
    const engram = await startEngram(kind, options.postgresUrl);
    try {
      const setSeconds = await storeEvalSet(engram.api, set, options.dates);
      const fill = await loadSynthetic(engram.api, size, avoid, {
        perEntity: 50,
        batch: options.batch,
        progress: (line) => console.log(line),
      });
      console.log(
        `filled: ${fill.entities.toLocaleString('en')} entities in ${fill.seconds.toFixed(1)} s; the set in ${setSeconds.toFixed(1)} s; settling ${options.settleSeconds} s`,
      );
      await sleep(options.settleSeconds * 1000);
      const refByKey = new Map(
        set.memories.map((m) => [memoryKey(m.entityName, storedText(m, options.dates)), m.ref]),
      );
      // Quality first (every question of the split once), then the timed calls.
      const answers = new Map<string, Answer>();
      for (const q of questions)
        answers.set(q.id, await askRecall(engram.api, q.question, options.limit, refByKey));
      const r10 = summarize(
        '',
        questions.filter((q) => q.evidence.length > 0),
        answers,
      ).recall[10];
      const loadBefore = load();
      const timed = async (asked: Question[]) => {
        const warmUp = 20;
        const times: number[] = [];
        for (let i = 0; i < warmUp + options.calls; i++) {
          const q = asked[i % asked.length]!;
          const answer = await askRecall(engram.api, q.question, options.limit, refByKey);
          if (i >= warmUp) times.push(answer.ms!);
        }
        return times;
      };
      const times = await timed(questions);
      // As people and agents write them (issue 60's latency target): 8 to 20 words.
      const long = await timed(questions.filter((q) => LONG_QUESTION.test(q.question)));
      const row = {
        size,
        filler: size,
        observations: size + set.memories.length,
        fillSeconds: fill.seconds,
        fillPerSecond: fill.seconds ? fill.observations / fill.seconds : 0,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
        p99: percentile(times, 99),
        long: { p50: percentile(long, 50), p95: percentile(long, 95), p99: percentile(long, 99) },
        recallAt10: r10,
        load: `${loadBefore} → ${load()}`,
      };
      results.push(row);
      rows.push([
        row.filler.toLocaleString('en'),
        row.observations.toLocaleString('en'),
        `${row.fillSeconds.toFixed(1)} s (${row.fillPerSecond.toFixed(0)}/s)`,
        row.p50.toFixed(1),
        row.p95.toFixed(1),
        row.p99.toFixed(1),
        `${row.long.p50.toFixed(1)} / ${row.long.p95.toFixed(1)} / ${row.long.p99.toFixed(1)}`,
        pct(r10),
        row.load,
      ]);
      console.log(table(SCALE_HEADER, [rows.at(-1)!]));
    } finally {
      await engram.close();
    }
  }
  console.log(
    `\n### ${kind}: recall latency, ${options.calls} calls over HTTP, limit ${options.limit}\n`,
  );
  console.log(table(SCALE_HEADER, rows));
  writeResult(`scale-${kind}`, {
    database: kind,
    calls: options.calls,
    limit: options.limit,
    rows: results,
    machine: machine(),
  });
}

// ── main ────────────────────────────────────────────────────────────────────

function writeResult(name: string, value: unknown) {
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const file = `${dir}${new Date().toISOString().replaceAll(':', '-').slice(0, 19)}-${name}.json`;
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  console.log(`\nwritten: ${file}`);
}

async function main() {
  const set = loadEvalSet();
  console.log('# bench/recall\n');
  for (const line of describeSet(set)) console.log(line);
  const questions = set.questions.filter((q) => splits.includes(q.split));
  console.log(
    `asking the ${splits.join(' and ')} split${splits.length > 1 ? 's' : ''}: ${questions.length} questions; ${machine()}`,
  );
  for (const kind of options.databases) {
    if (options.scale.length) await latency(kind, set, questions);
    else await evaluate(kind, set, questions);
  }
}

main().catch((error: unknown) => {
  console.error(
    `\n${error instanceof RecallMissing ? error.message : String((error as Error).stack ?? error)}`,
  );
  process.exitCode = error instanceof RecallMissing ? 2 : 1;
});
