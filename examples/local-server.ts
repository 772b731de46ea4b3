/**
 * The memory the examples use: the Engram server named by `ENGRAM_URL` and
 * `ENGRAM_API_KEY` (its default space, or `ENGRAM_SPACE`, made when missing),
 * or — without them — this repository's built server started in this process
 * on a temporary embedded database, with a new account, removed at the end.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engram } from '@engram/client';

export interface Memory {
  engram: Engram;
  /** Where it is, to print. */
  where: string;
  close(): Promise<void>;
}

export async function openMemory(): Promise<Memory> {
  const { ENGRAM_URL, ENGRAM_API_KEY, ENGRAM_SPACE } = process.env;
  if (ENGRAM_URL && ENGRAM_API_KEY) {
    const engram = new Engram({
      url: ENGRAM_URL,
      apiKey: ENGRAM_API_KEY,
      ...(ENGRAM_SPACE ? { space: ENGRAM_SPACE, createSpace: true } : {}),
    });
    return { engram, where: ENGRAM_URL, close: async () => {} };
  }

  // `npm run build` at the repository root builds the server these come from.
  const { loadConfig } = await import('../packages/server/dist/config.js');
  const { buildApp } = await import('../packages/server/dist/app.js');
  const dataDir = await mkdtemp(join(tmpdir(), 'engram-example-'));
  const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir }) });
  const close = async () => {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const signedUp = await app.inject({
      method: 'POST',
      url: '/auth/register',
      payload: {
        email: 'example@example.com',
        password: 'Example-password-1',
        firstName: 'Sam',
        lastName: 'Example',
      },
    });
    if (signedUp.statusCode !== 201) throw new Error(`sign-up failed: ${signedUp.body}`);
    const { user } = signedUp.json<{ user: { apiKey: string } }>();
    return {
      engram: new Engram({ url, apiKey: user.apiKey }),
      where: `${url} (in this process, data in ${dataDir})`,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
