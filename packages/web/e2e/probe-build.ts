import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Builds the web app as production does, plus the graph canvas's probe
 * (`canvas.graphProbe`, src/components/graph-canvas/scene/graph-probe.ts)
 * that the graph specs and bench/graph-ui read, into a new temporary folder,
 * and returns that folder. The probe is measurement tooling: dist/, which
 * `npm start` serves, never has it. Takes a few seconds.
 */
export async function buildWebWithProbe(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'engram-web-probe-'));
  const build = spawnSync(
    'npm',
    ['run', 'build', '--', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'],
    { cwd: WEB_ROOT, env: { ...process.env, VITE_GRAPH_PROBE: '1' }, stdio: 'inherit' },
  );
  if (build.status !== 0) {
    await rm(outDir, { recursive: true, force: true });
    throw new Error(`Building the web app with the graph probe failed (exit ${build.status})`);
  }
  return outDir;
}
