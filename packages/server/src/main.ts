#!/usr/bin/env node
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/connection.js';
import { migrate } from './db/migrate.js';

const USAGE = `Usage: engram <command>

Commands:
  serve     Run the API, MCP endpoint, realtime gateway and web app
  migrate   Apply pending database migrations and exit`;

async function serve(config: Config): Promise<void> {
  const app = await buildApp({ config });
  const close = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void close('SIGINT'));
  process.once('SIGTERM', () => void close('SIGTERM'));
  await app.listen({ port: config.PORT, host: config.HOST });
}

async function runMigrations(config: Config): Promise<void> {
  const handle = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
  });
  try {
    const applied = await migrate(handle);
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date');
  } finally {
    await handle.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve'] = argv;
  if (command === '--help' || command === 'help') {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  if (command === 'serve') return serve(config);
  if (command === 'migrate') return runMigrations(config);
  console.error(`Unknown command "${command}".\n\n${USAGE}`);
  process.exitCode = 2;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
