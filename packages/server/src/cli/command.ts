import type { Config } from '../config.js';

/** One `engram <command>`: its lines in `engram --help` and what it does. */
export interface Command {
  /** Its lines under "Commands:" in `engram --help`, indented as they are shown. */
  help: string;
  run(config: Config, args: string[], cli: CommandProcess): Promise<void>;
}

/** What main.ts offers a command that keeps running. */
export interface CommandProcess {
  /** On SIGINT or SIGTERM: `stop`, then exit 0. A command that never calls it is ended by the signal. */
  stopOnSignal(stop: (signal: string) => Promise<void>): void;
}

/** Fails the command with this message and exit code 1. */
export class UsageError extends Error {}
