#!/usr/bin/env node
import { backup } from './cli/backup.js';
import { UsageError, type Command, type CommandProcess } from './cli/command.js';
import { exportCommand } from './cli/export.js';
import { importCommand } from './cli/import.js';
import { mcp } from './cli/mcp.js';
import { migrate } from './cli/migrate.js';
import { plan } from './cli/plan.js';
import { restore } from './cli/restore.js';
import { serve } from './cli/serve.js';
import { ConfigError, loadConfig } from './config.js';
import { BackupRefusedError } from './db/backup-file.js';
import { DataFolderBusyError } from './db/data-lock.js';
import { AppError } from './lib/errors.js';

/** Every command, in the order `--help` lists them: a new one is a file in cli/ and a line here. */
const COMMANDS: Record<string, Command> = {
  serve,
  migrate,
  mcp,
  import: importCommand,
  export: exportCommand,
  plan,
  backup,
  restore,
};

const USAGE = `Usage: engram <command>

Commands:
${Object.values(COMMANDS)
  .map((command) => command.help)
  .join('\n')}

The database is DATABASE_URL, else the embedded one in DATA_DIR (default ./data).`;

const commandProcess: CommandProcess = {
  stopOnSignal(stop) {
    const close = async (signal: string) => {
      await stop(signal);
      process.exit(0);
    };
    process.once('SIGINT', () => void close('SIGINT'));
    process.once('SIGTERM', () => void close('SIGTERM'));
  },
};

async function main(argv: string[]): Promise<void> {
  const [name = 'serve', ...rest] = argv;
  if (name === '--help' || name === 'help') {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new UsageError(`Unknown command "${name}".\n\n${USAGE}`);
  return command.run(config, rest, commandProcess);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // Expected failures get their message alone; anything else its stack.
  const known =
    error instanceof ConfigError ||
    error instanceof UsageError ||
    error instanceof DataFolderBusyError ||
    error instanceof BackupRefusedError ||
    error instanceof AppError;
  console.error(known ? error.message : error);
  process.exit(1);
});
