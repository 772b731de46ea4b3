/**
 * Runs every agent in examples/ as a person would (`tsx`), each on its own
 * in-process server (or ENGRAM_URL's): an example that fails — or whose
 * agent does not recall what it was told — fails the suite. They use the
 * built packages: `npm run build` first.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const examples = fileURLToPath(new URL('../examples/', import.meta.url));
const run = promisify(execFile);
const agents = readdirSync(examples).filter((file) => file.endsWith('-agent.ts'));

describe('examples/', () => {
  it('has the three framework agents', () => {
    expect(agents.sort()).toEqual([
      'ai-sdk-agent.ts',
      'langchain-agent.ts',
      'openai-agents-agent.ts',
    ]);
  });

  // One at a time: each starts a server on its own embedded database.
  for (const agent of agents) {
    it(`${agent} remembers, then recalls`, { timeout: 180_000 }, async () => {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', agent], {
        cwd: examples,
        env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.run.json' },
      });
      expect(stdout).toContain('> From memory:');
    });
  }
});
