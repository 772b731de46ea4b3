/**
 * The CLI's import and export at scale (issue 31: they keep working on a
 * 1M-entity graph): on one embedded data folder (PGlite), each step a real
 * `engram` process, timed, with its peak resident memory:
 *
 * 1. `engram import` of a reference JSONL file of BENCH_ENTITIES entities
 *    (one observation each) and as many relations (a ring);
 * 2. `engram export` of the account as JSONL, then `--format json`;
 * 3. `engram import` of that JSON document into a second account.
 *
 *   BENCH_ENTITIES=100000 npx tsx bench/export/cli.ts
 *
 * Peak memory is GNU time's maximum resident set size (%M), when
 * /usr/bin/time is there. Results: bench/README.md ("bench/export").
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { prepareAccount } from '../realtime/server.js';

const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 100_000);
const MAIN = fileURLToPath(new URL('../../packages/server/src/main.ts', import.meta.url));
const TIME = '/usr/bin/time';

/** Writes the reference server's JSONL: entities, then relations, as its own file has them. */
async function writeJsonl(file: string): Promise<void> {
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const name = (index: number) => `entity ${String(index).padStart(7, '0')}`;
  for (let start = 0; start < ENTITIES; start += 1_000) {
    let text = '';
    for (let index = start; index < Math.min(ENTITIES, start + 1_000); index++) {
      text += `${JSON.stringify({ type: 'entity', name: name(index), entityType: index % 2 ? 'person' : 'thing', observations: [`observation of ${name(index)}`] })}\n`;
    }
    await write(text);
  }
  for (let start = 0; start < ENTITIES; start += 1_000) {
    let text = '';
    for (let index = start; index < Math.min(ENTITIES, start + 1_000); index++) {
      text += `${JSON.stringify({ type: 'relation', from: name(index), to: name((index + 1) % ENTITIES), relationType: 'next' })}\n`;
    }
    await write(text);
  }
  out.end();
  await once(out, 'finish');
}

interface Step {
  label: string;
  seconds: number;
  peakMb: number | undefined;
  said: string;
  load: string;
}

/** Runs `engram <args>` for the account of `apiKey`: its time, peak memory and last line on stderr. */
async function engram(
  label: string,
  args: string[],
  dataDir: string,
  apiKey: string,
): Promise<Step> {
  const timed = existsSync(TIME);
  const command = [process.execPath, '--import', import.meta.resolve('tsx'), MAIN, ...args];
  const child = spawn(
    timed ? TIME : command[0]!,
    timed ? ['-f', 'PEAK %M', ...command] : command.slice(1),
    {
      env: { ...process.env, DATA_DIR: dataDir, ENGRAM_API_KEY: apiKey, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const started = performance.now();
  const [code] = (await once(child, 'exit')) as [number | null];
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`engram ${args.join(' ')} failed (${code}): ${stderr}`);
  const lines = stderr.trim().split('\n');
  const peak = /^PEAK (\d+)$/.exec(lines.at(-1) ?? '');
  if (peak) lines.pop();
  return {
    label,
    seconds,
    peakMb: peak ? Number(peak[1]) / 1024 : undefined,
    said: lines.at(-1) ?? '',
    load: loadavg()[0]!.toFixed(2),
  };
}

const size = async (file: string) => `${((await stat(file)).size / 1024 / 1024).toFixed(1)} MB`;

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-bench-cli-'));
  try {
    const [first, second] = [await prepareAccount(dataDir), await prepareAccount(dataDir)];
    const jsonl = join(dataDir, 'memory.jsonl');
    await writeJsonl(jsonl);
    const steps: Step[] = [];
    const run = async (label: string, args: string[], apiKey: string) => {
      const step = await engram(label, args, dataDir, apiKey);
      steps.push(step);
      console.log(
        `${step.label}: ${step.seconds.toFixed(1)} s, peak ${step.peakMb?.toFixed(0) ?? '?'} MB, load ${step.load} — ${step.said}`,
      );
    };
    await run(`import JSONL (${await size(jsonl)})`, ['import', jsonl], first!.apiKey);
    const outJsonl = join(dataDir, 'export.jsonl');
    await run('export JSONL', ['export', '--output', outJsonl], first!.apiKey);
    const outJson = join(dataDir, 'export.json');
    await run('export JSON', ['export', '--format', 'json', '--output', outJson], first!.apiKey);
    await run(
      `import JSON (${await size(outJson)}) into a second account`,
      ['import', outJson],
      second!.apiKey,
    );
    console.log(
      `\nCLI on PGlite, ${ENTITIES.toLocaleString('en-US')} entities (1 observation each) and as many relations; exports ${await size(outJsonl)} (JSONL), ${await size(outJson)} (JSON)`,
    );
    for (const step of steps) {
      console.log(
        `${step.label.padEnd(48)} ${step.seconds.toFixed(1).padStart(7)} s  peak ${(step.peakMb?.toFixed(0) ?? '?').padStart(5)} MB  load ${step.load}`,
      );
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
