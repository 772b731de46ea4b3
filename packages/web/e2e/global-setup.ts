import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWebWithProbe } from './probe-build';

const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
const STARTUP_TIMEOUT_MS = 90_000;

/** Asks the OS for a port nobody is listening on. */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('No free port found');
  return address.port;
}

async function waitUntilHealthy(baseUrl: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null)
      throw new Error(`Server exited early with code ${server.exitCode}`);
    try {
      const response = await fetch(`${baseUrl}/healthz`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`Server did not become healthy within ${STARTUP_TIMEOUT_MS / 1000} s`);
}

/** Starts the real server for the run; the returned function stops it again. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  // Pointing the suite at a server that is already running skips starting one.
  if (process.env.E2E_BASE_URL) return async () => undefined;

  if (!existsSync(SERVER_MAIN)) {
    throw new Error(
      `The server is not built (${SERVER_MAIN}); run \`npm run test:e2e\`, which builds it.`,
    );
  }
  // The app served is the production build plus the graph canvas's probe, which the
  // graph specs read (e2e/probe-build.ts): a server named by E2E_BASE_URL serves such a build too.
  const webDist = await buildWebWithProbe();

  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-e2e-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, [SERVER_MAIN, 'serve'], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      WEB_DIST_DIR: webDist,
      LOG_LEVEL: 'warn',
      // Webhook endpoints may be a spec's own receiver on 127.0.0.1 (over http).
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });

  try {
    await waitUntilHealthy(baseUrl, server);
  } catch (error) {
    server.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    await rm(webDist, { recursive: true, force: true });
    throw error;
  }
  // Workers start after global setup and inherit these.
  process.env.E2E_BASE_URL = baseUrl;
  // The Connect an agent panel names it on this machine (connect-agent.spec.ts).
  process.env.E2E_DATA_DIR = dataDir;

  return async () => {
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    await rm(dataDir, { recursive: true, force: true });
    await rm(webDist, { recursive: true, force: true });
  };
}
