import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
const WEB_DIST = fileURLToPath(new URL('../dist', import.meta.url));
/** A fresh data directory means migrations first; a busy 2-core machine needs the time. */
const STARTUP_TIMEOUT_MS = 90_000;

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (address === null || typeof address === 'string') throw new Error('No free port found');
  return address.port;
}

/** Neither exited nor killed by a signal (a killed process keeps `exitCode` null). */
function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/**
 * A server of its own for a spec that must stop and restart it (the shared
 * one from global-setup serves every other spec). It keeps its port and data
 * directory across restarts, so sessions, API keys and the change log
 * survive, as they do when a real deployment restarts. Needs the build that
 * `npm run test:e2e` makes.
 */
export class PrivateServer {
  private process: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly dataDir: string,
  ) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Picks a port and a data directory; `start()` runs it. */
  static async create(): Promise<PrivateServer> {
    return new PrivateServer(
      await freePort(),
      await mkdtemp(join(tmpdir(), 'engram-e2e-private-')),
    );
  }

  /** Starts (again) on the same port and data directory; resolves once healthy. */
  async start(): Promise<void> {
    if (this.process && isRunning(this.process)) return;
    const child = spawn(process.execPath, [SERVER_MAIN, 'serve'], {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(this.port),
        DATA_DIR: this.dataDir,
        WEB_DIST_DIR: WEB_DIST,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    this.process = child;
    // Never outlive the test worker, even when a hook times out mid-start.
    const killChild = () => child.kill('SIGKILL');
    process.once('exit', killChild);
    child.once('exit', () => process.removeListener('exit', killChild));
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (!isRunning(child)) {
        throw new Error(
          `Private server exited early (code ${child.exitCode}, signal ${child.signalCode})`,
        );
      }
      try {
        if ((await fetch(`${this.baseUrl}/healthz`)).ok) return;
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    child.kill('SIGKILL');
    throw new Error(`Private server did not become healthy within ${STARTUP_TIMEOUT_MS / 1000} s`);
  }

  /** Stops gracefully (SIGTERM: connections closed, database flushed). */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || !isRunning(child)) return;
    const exited = once(child, 'exit');
    const started = Date.now();
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      console.warn('Private server ignored SIGTERM for 15 s: killing it');
      child.kill('SIGKILL');
    }, 15_000);
    await exited;
    clearTimeout(timer);
    if (Date.now() - started > 5_000) {
      console.warn(`Private server took ${Date.now() - started} ms to stop`);
    }
  }

  /** Stops and deletes the data directory. */
  async dispose(): Promise<void> {
    await this.stop();
    await rm(this.dataDir, { recursive: true, force: true });
  }
}
