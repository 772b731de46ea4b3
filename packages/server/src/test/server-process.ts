import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The CLI as a person runs it (`engram …`), from the sources through tsx. */
export const engramCommand = [
  createRequire(import.meta.url).resolve('tsx/cli'),
  fileURLToPath(new URL('../main.ts', import.meta.url)),
];

export interface ServerProcess {
  url: string;
  process: ChildProcess;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `engram serve` in a child process on a free port with these settings, once /healthz answers. */
export async function startServerProcess(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...engramCommand, 'serve'], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { url, process: child };
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error('server did not start');
}
