#!/usr/bin/env node
import { constants, createReadStream, createWriteStream, existsSync } from 'node:fs';
import { access, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { zipSync } from 'fflate';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { describeDatabase, startupBanner } from './http/banner.js';
import {
  announceServer,
  DataFolderBusyError,
  runningServer,
  type RunningServer,
} from './db/data-lock.js';
import { backupEmbeddedAlone, restoreEmbedded } from './db/backup-embedded.js';
import {
  BackupRefusedError,
  readBackupHeader,
  writeSecretFile,
  type BackupHeader,
} from './db/backup-file.js';
import { backupPostgres, restorePostgres } from './db/backup-postgres.js';
import { readBackupToken, writeBackupToken } from './db/backup-token.js';
import { openDatabase } from './db/connection.js';
import { migrate } from './db/migrate.js';
import type { SpaceAuth } from './lib/auth-context.js';
import { BACKUP_TOKEN_HEADER } from './features/backup/index.js';
import { formatOf, isNotePath, type NoteFile } from './features/transfer/index.js';
import { AppError } from './lib/errors.js';
import { localOrigin } from './lib/local-origin.js';
import { bridgeStdio } from './mcp/bridge.js';
import { serveStdio } from './mcp/stdio.js';
import { createRuntime, databaseOptionsOf, type Runtime, type RuntimeOptions } from './runtime.js';
import { isLoopbackBind } from './lib/loopback.js';

const USAGE = `Usage: engram <command>

Commands:
  serve                     Run the API, MCP endpoint and web app
  migrate                   Apply pending database migrations and exit
  mcp [--space <slug>]      Serve the MCP memory tools over stdio (needs ENGRAM_API_KEY);
                            while engram serve owns the data folder, relays to its /mcp
  import [--format markdown|mem0|jsonl|json] <file|folder> [--space <slug>]
                            Import memory (needs ENGRAM_API_KEY): without --format the
                            reference server's JSONL or an Engram export (.json);
                            markdown: basic-memory notes or an Obsidian vault (a folder
                            or a .zip); mem0: a mem0 export (.json)
  export [--format jsonl|json|markdown] [--output <file>] [--space <slug>]
                            Write a space's graph (default jsonl to stdout; markdown
                            writes a zip and needs --output)

import and export go through a server's HTTP API when ENGRAM_URL names one, and
through the running engram serve when it owns the data folder.

--space names a memory space of the key's account (default: the default space).
  plan set <email> <plan>   Without a payment provider: move the account that email
                            owns to a plan (free, starter, pro, team, …-annual)
  backup --output <file>    Write a consistent snapshot of the whole database (every
                            account, key, history, webhook, OAuth and instance secret:
                            keep it secret; written with mode 0600). While engram serve
                            owns the data folder, asks that server for it
  restore <file> [--force]  Restore a backup into an empty data folder or database of
                            the same kind (--force replaces what is there), then migrate

The database is DATABASE_URL, else the embedded one in DATA_DIR (default ./data).`;

type App = Awaited<ReturnType<typeof buildApp>>;

/** How long a graceful stop may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 10_000;

/** Fails the command with this message and exit code 1. */
class UsageError extends Error {}

async function serve(config: Config): Promise<void> {
  const app = await buildApp({ config });
  if (!config.PUBLIC_URL && !isLoopbackBind(config.HOST)) {
    app.log.warn(
      'PUBLIC_URL is not set: browsers reach /ws/connect and /mcp only from loopback origins. Set PUBLIC_URL to the address people open.',
    );
  }
  if (config.ALLOW_PRIVATE_NETWORK_TARGETS === 'true') {
    app.log.warn(
      'ALLOW_PRIVATE_NETWORK_TARGETS is on: webhooks and OAuth client metadata may reach http and private, loopback and link-local addresses. Development and tests only.',
    );
  }
  let withdraw = () => {};
  const close = async (signal: string) => {
    if (config.NODE_ENV === 'production') {
      app.log.info({ signal }, 'shutting down');
    } else {
      // The banner promised a person warnings and errors only: a plain line, and
      // the framework's own notes about closing kept quiet.
      console.log(`Stopping (${signal})…`);
      if (app.log.level === 'info') app.log.level = 'warn';
    }
    withdraw();
    // A connection or statement that never ends must not keep a stopped node alive.
    setTimeout(() => {
      app.log.error(`shutdown did not finish within ${SHUTDOWN_DEADLINE_MS / 1000} s; exiting`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void close('SIGINT'));
  process.once('SIGTERM', () => void close('SIGTERM'));
  // The banner below says where the server is: Fastify's own "Server listening at" lines would repeat it.
  const level = app.log.level;
  app.log.level = 'warn';
  await app.listen({ port: config.PORT, host: config.HOST });
  app.log.level = level;
  // The one origin people are shown and OAuth names (PORT 0 lets the system pick the port).
  const { port } = app.server.address() as AddressInfo;
  const url = localOrigin({ HOST: config.HOST, PORT: port });
  // The embedded data folder is this process's: `engram mcp` relays to us instead,
  // and `engram backup` asks us, showing the token written here (decision 038).
  if (!config.DATABASE_URL) {
    const withdrawToken = writeBackupToken(config.DATA_DIR);
    const withdrawServer = announceServer(config.DATA_DIR, url);
    withdraw = () => {
      withdrawServer();
      withdrawToken();
    };
  }
  announce(app, config, url);
}

/**
 * Where the web app, /docs and /mcp are and which database is in use: a short
 * banner for a person, one log entry in production (where logs are JSON).
 */
function announce(app: App, config: Config, localAddress: string): void {
  const url = config.PUBLIC_URL ?? localAddress;
  if (config.NODE_ENV === 'production') {
    const database = describeDatabase(config.DATABASE_URL, config.DATA_DIR);
    app.log.info({ url, database }, 'Engram is running');
  } else if (config.LOG_LEVEL !== 'silent') {
    const banner = startupBanner({
      url,
      databaseUrl: config.DATABASE_URL,
      dataDir: config.DATA_DIR,
      logLevel: config.LOG_LEVEL,
    });
    console.log(banner);
  }
}

async function runMigrations(config: Config): Promise<void> {
  const handle = await openDatabase(databaseOptionsOf(config));
  try {
    const applied = await migrate(handle);
    console.error(applied.length ? `Applied: ${applied.join(', ')}` : 'Database is up to date');
  } finally {
    await handle.close();
  }
}

/** Import and export are an operator's bulk commands: no statement timeout. */
const BULK: RuntimeOptions = { unboundedStatements: true };

/** Opens the services and resolves ENGRAM_API_KEY to the account it acts for, in the space named. */
/**
 * Commands that act on an existing database refuse a data folder that holds
 * none: opening it would make a new, empty one (only `serve` and `migrate`
 * create a database), and the key would then be "not valid".
 */
function requireDatabase(config: Config): void {
  if (config.DATABASE_URL || existsSync(join(config.DATA_DIR, 'PG_VERSION'))) return;
  throw new UsageError(
    `There is no Engram database in ${resolve(config.DATA_DIR)} (DATA_DIR). Set DATA_DIR to the folder engram serve uses, or create one there with engram serve or engram migrate.`,
  );
}

async function withSpace(
  config: Config,
  space: { slug: string | undefined; access: 'read' | 'write' },
  fn: (runtime: Runtime, auth: SpaceAuth) => Promise<void>,
  options: RuntimeOptions = {},
): Promise<void> {
  requireDatabase(config);
  if (!config.ENGRAM_API_KEY) {
    throw new UsageError(
      'Set ENGRAM_API_KEY to an API key of the account to use (create one on the API Keys screen, or use your personal key from GET /auth/me).',
    );
  }
  const runtime = await createRuntime(config, options);
  try {
    const auth = await runtime.authenticate(config.ENGRAM_API_KEY);
    if (!auth)
      throw new UsageError('ENGRAM_API_KEY is not a valid, unexpired key on this database.');
    await fn(runtime, await runtime.spaces.resolveSpace(auth, space.slug, space.access, {}));
  } finally {
    await runtime.close();
  }
}

/**
 * `engram mcp`: opens the database itself, or — when a running server owns
 * the embedded data folder — relays stdio to that server's /mcp with the
 * same key.
 */
async function serveMcp(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { space: { type: 'string' } } });
  try {
    // Read access is what opening needs; each tool checks its own (a read-only key stays usable).
    await withSpace(config, { slug: values.space, access: 'read' }, (runtime, auth) =>
      serveStdio(runtime, auth, { webDistDir: config.WEB_DIST_DIR }),
    );
  } catch (error) {
    const server =
      error instanceof DataFolderBusyError && !config.DATABASE_URL
        ? runningServer(config.DATA_DIR)
        : undefined;
    if (!server || !config.ENGRAM_API_KEY) throw error;
    const path = values.space ? `/mcp/${encodeURIComponent(values.space)}` : '/mcp';
    await bridgeStdio({ url: new URL(path, server.url).href, credential: config.ENGRAM_API_KEY });
  }
}

const IMPORT_FORMATS = ['markdown', 'mem0', 'jsonl', 'json'] as const;
type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** What an import wrote, in a sentence, then a line for each thing it left out. */
function imported(summary: {
  entities: number;
  relations: number;
  observations: number;
  skipped?: { file?: string; name?: string; reason: string }[];
}) {
  const left = (summary.skipped ?? []).map(
    ({ file, name, reason }) =>
      `\n  left out: ${[file, name].filter(Boolean).join(': ')}${file || name ? ' — ' : ''}${reason}`,
  );
  return `Imported ${summary.entities} entities, ${summary.observations} observations and ${summary.relations} relations.${left.join('')}`;
}

/**
 * Runs `local` on the database, or `remote` through a server's HTTP API:
 * the one ENGRAM_URL names, else the `engram serve` that owns the data folder
 * (as `engram mcp` relays to it).
 */
async function locallyOrThrough(
  config: Config,
  local: () => Promise<void>,
  remote: (base: string, apiKey: string) => Promise<void>,
): Promise<void> {
  const given = process.env['ENGRAM_URL']?.trim();
  const needKey = () => {
    if (!config.ENGRAM_API_KEY) {
      throw new UsageError('Set ENGRAM_API_KEY to an API key of the account to use.');
    }
    return config.ENGRAM_API_KEY;
  };
  if (given) return remote(given, needKey());
  try {
    await local();
  } catch (error) {
    const server =
      error instanceof DataFolderBusyError && !config.DATABASE_URL
        ? runningServer(config.DATA_DIR)
        : undefined;
    if (!server || !config.ENGRAM_API_KEY) throw error;
    await remote(server.url, config.ENGRAM_API_KEY);
  }
}

/** A request to the server's API with the key and space; its error body said as the failure. */
async function callServer(
  base: string,
  apiKey: string,
  path: string,
  init: { method: string; space?: string | undefined; type?: string; body?: Uint8Array | string },
): Promise<Response> {
  const url = new URL(path, base.endsWith('/') ? base : `${base}/`);
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (init.space) headers['x-engram-space'] = init.space;
  if (init.type) headers['content-type'] = init.type;
  let response: Response;
  try {
    response = await fetch(url, { method: init.method, headers, body: init.body });
  } catch (error) {
    throw new UsageError(`Cannot reach ${url.origin}: ${(error as Error).message}`);
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: string };
    throw new UsageError(
      `The server at ${url.origin} refused it (${response.status}): ${body.error ?? response.statusText}`,
    );
  }
  return response;
}

/** A folder's notes (`.md` outside hidden folders), paths `/`-separated. */
async function notesOf(folder: string): Promise<NoteFile[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files: NoteFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    const path = relative(folder, full).split(sep).join('/');
    if (isNotePath(path)) files.push({ path, text: await readFile(full, 'utf8') });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function importFile(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { space: { type: 'string' }, format: { type: 'string' } },
    allowPositionals: true,
  });
  const file = positionals[0];
  if (!file) throw new UsageError('Give the file to import: engram import <file>');
  const format = values.format as ImportFormat | undefined;
  if (format !== undefined && !IMPORT_FORMATS.includes(format)) {
    throw new UsageError(`--format must be one of ${IMPORT_FORMATS.join(', ')}`);
  }
  // Read as a stream, as often as the import needs (a check, then the writes):
  // a file of any size, never whole in memory. Fails here if it cannot be read.
  await access(file, constants.R_OK).catch((error: Error) => {
    throw new UsageError(`Cannot read ${file}: ${error.message}`);
  });
  const folder = (await stat(file)).isDirectory();
  if (folder && format !== 'markdown') {
    throw new UsageError(`${file} is a folder: only --format markdown reads a folder of notes`);
  }
  const source = () => createReadStream(file, { encoding: 'utf8' });
  await locallyOrThrough(
    config,
    () =>
      withSpace(
        config,
        { slug: values.space, access: 'write' },
        async (runtime, auth) => {
          const transfer = runtime.transfer;
          const summary =
            format === 'markdown'
              ? folder
                ? await transfer.importMarkdown(auth, await notesOf(file))
                : await transfer.importMarkdownZip(auth, new Uint8Array(await readFile(file)))
              : format === 'mem0'
                ? await transfer.importMem0(auth, parseJsonFile(file, await readFile(file, 'utf8')))
                : // An Engram export (a JSON object with "format") or, anything else, the reference JSONL.
                  await transfer.importFrom(auth, source);
          // Statistics for the new rows; on PGlite, which has no autovacuum, the new
          // pages marked all-visible here too, so no later pass of the server's
          // upkeep has to read them all while its one connection waits.
          const upkeep = runtime.database.kind === 'pglite' ? 'vacuum analyze' : 'analyze';
          await runtime.database.withSession((session) => session.exec(upkeep));
          console.error(imported(summary));
        },
        BULK,
      ),
    async (base, apiKey) => {
      // Over HTTP the file goes whole, within the server's request body limit.
      const body = folder
        ? zipSync(
            Object.fromEntries(
              (await notesOf(file)).map((note) => [note.path, new TextEncoder().encode(note.text)]),
            ),
          )
        : new Uint8Array(await readFile(file));
      const sent = format ?? ((await formatOf(source)) === 'lossless' ? 'json' : 'jsonl');
      const type =
        sent === 'markdown'
          ? 'application/zip'
          : sent === 'jsonl'
            ? 'application/x-ndjson'
            : 'application/json';
      const response = await callServer(base, apiKey, `api/import?format=${sent}`, {
        method: 'POST',
        space: values.space,
        type,
        body,
      });
      console.error(imported((await response.json()) as Parameters<typeof imported>[0]));
    },
  );
}

/** A JSON file, or a usage error saying it is not one. */
function parseJsonFile(file: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${file} is not valid JSON`);
  }
}

async function exportGraph(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      format: { type: 'string', default: 'jsonl' },
      output: { type: 'string' },
      space: { type: 'string' },
    },
  });
  const format = values.format;
  if (format !== 'jsonl' && format !== 'json' && format !== 'markdown') {
    throw new UsageError(
      '--format must be jsonl (the reference server’s), json (lossless) or markdown (a zip of notes)',
    );
  }
  if (format === 'markdown' && !values.output) {
    throw new UsageError(
      'Give the zip to write: engram export --format markdown --output <file.zip>',
    );
  }
  await locallyOrThrough(
    config,
    () =>
      withSpace(
        config,
        { slug: values.space, access: 'read' },
        async (runtime, auth) => {
          if (format === 'markdown') {
            await writeFile(values.output!, await runtime.transfer.exportMarkdown(auth));
            return;
          }
          const chunks =
            format === 'json'
              ? runtime.transfer.exportLossless(auth)
              : runtime.transfer.exportJsonl(auth);
          const out = values.output ? createWriteStream(values.output) : process.stdout;
          await pipeline(Readable.from(chunks), out, { end: out !== process.stdout });
        },
        BULK,
      ),
    async (base, apiKey) => {
      const response = await callServer(base, apiKey, `api/export?format=${format}`, {
        method: 'GET',
        space: values.space,
      });
      const out = values.output ? createWriteStream(values.output) : process.stdout;
      const body = response.body;
      if (!body) return;
      await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream), out, {
        end: out !== process.stdout,
      });
    },
  );
}

/** `engram plan set <email> <plan>`: the operator's plan change (docs/deploy.md "Plans"). */
async function planCommand(config: Config, args: string[]): Promise<void> {
  const [action, email, planId, ...extra] = args;
  if (action !== 'set' || !email || !planId || extra.length > 0) {
    throw new UsageError('Usage: engram plan set <email> <plan>');
  }
  requireDatabase(config);
  const runtime = await createRuntime(config);
  try {
    const done = await runtime.billing.setPlanByOperator(email, planId);
    console.log(
      `${done.email}: ${done.from.name} (${done.from.id}) → ${done.to.name} (${done.to.id})`,
    );
  } finally {
    await runtime.close();
  }
}

/** What a backup holds, in a few words. */
function describeBackup(header: BackupHeader): string {
  const kind = header.kind === 'pglite' ? 'embedded database' : 'PostgreSQL database';
  return `the ${kind} as of ${header.takenAt} (${header.migrations.length} migrations)`;
}

/**
 * `engram backup --output <file>` (docs/deploy.md "Backups", decision 038):
 * with DATABASE_URL, pg_dump's snapshot; on the embedded database, the
 * running server's snapshot when one owns the folder, else the folder's own.
 */
async function backupCommand(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { output: { type: 'string' } } });
  if (!values.output) throw new UsageError('Give the file to write: engram backup --output <file>');
  const server = config.DATABASE_URL ? undefined : runningServer(config.DATA_DIR);
  const header = config.DATABASE_URL
    ? await backupPostgres(config.DATABASE_URL, values.output)
    : server
      ? await backupFromServer(server, config.DATA_DIR, values.output)
      : await backupEmbeddedAlone(databaseOptionsOf(config), values.output);
  console.error(
    `Backed up ${describeBackup(header)} to ${values.output}. It holds every account and the instance's secrets: keep it private.`,
  );
}

/** Asks the server that owns the data folder for its snapshot, over loopback, with the folder's token. */
async function backupFromServer(
  server: RunningServer,
  dataDir: string,
  output: string,
): Promise<BackupHeader> {
  const token = readBackupToken(dataDir);
  if (!token) {
    throw new BackupRefusedError(
      `The server running on ${dataDir} (pid ${server.pid}) wrote no backup token: restart it with this version of Engram, or stop it and run engram backup again.`,
    );
  }
  const url = new URL('/internal/backup', server.url);
  if (!isLoopbackBind(url.hostname)) {
    throw new BackupRefusedError(
      `The server running on ${dataDir} listens on ${url.host}, not on a loopback address, and gives backups over loopback only: stop it and run engram backup again, or serve with HOST=127.0.0.1 (or 0.0.0.0).`,
    );
  }
  const response = await fetch(url, { method: 'POST', headers: { [BACKUP_TOKEN_HEADER]: token } });
  if (!response.ok || !response.body) {
    const body = (await response.json().catch(() => ({}))) as { error?: string };
    throw new BackupRefusedError(
      `The server refused the backup (${response.status}): ${body.error ?? response.statusText}`,
    );
  }
  const body = response.body;
  await writeSecretFile(output, async (append) => {
    for await (const chunk of body) await append(chunk);
  });
  return (await readBackupHeader(output)).header;
}

/** `engram restore <file> [--force]` (docs/deploy.md "Backups"). */
async function restoreCommand(config: Config, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { force: { type: 'boolean', default: false } },
    allowPositionals: true,
  });
  const file = positionals[0];
  if (!file || positionals.length > 1) {
    throw new UsageError('Give the backup file to restore: engram restore <file> [--force]');
  }
  const done = config.DATABASE_URL
    ? await restorePostgres(file, config.DATABASE_URL, values.force)
    : await restoreEmbedded(file, databaseOptionsOf(config), values.force);
  const where = config.DATABASE_URL ? 'the database' : config.DATA_DIR;
  const migrated = done.applied.length ? `; applied ${done.applied.join(', ')}` : '';
  console.error(`Restored ${describeBackup(done.header)} into ${where}${migrated}.`);
}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === 'help') {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config);
    case 'migrate':
      return runMigrations(config);
    case 'mcp':
      return serveMcp(config, rest);
    case 'import':
      return importFile(config, rest);
    case 'export':
      return exportGraph(config, rest);
    case 'plan':
      return planCommand(config, rest);
    case 'backup':
      return backupCommand(config, rest);
    case 'restore':
      return restoreCommand(config, rest);
    default:
      throw new UsageError(`Unknown command "${command}".\n\n${USAGE}`);
  }
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
