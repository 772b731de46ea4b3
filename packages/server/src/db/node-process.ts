import { spawn } from 'node:child_process';

/**
 * Runs Node with `args` in a short-lived process of its own (decision 026)
 * and waits for it to exit. A failure throws `failure(reason)`, the reason
 * being the end of what the process wrote to stderr, or its exit code.
 */
export async function runNodeProcess(
  args: string[],
  failure: (reason: string) => Error,
): Promise<void> {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: process.env,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw failure(stderr.trim() || `exit code ${code}`);
}

/**
 * Ends the promise chain of a script run with `-e`: the process exits 0 once
 * the chain settles, or prints the error and exits 1.
 */
export const EXIT_WHEN_SETTLED = /* js */ `
    .then(
      () => process.exit(0),
      (error) => {
        console.error(error && error.message ? error.message : String(error));
        process.exit(1);
      },
    );
`;
