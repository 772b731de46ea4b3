import { constants, createReadStream } from 'node:fs';
import { access, readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { zipSync } from 'fflate';
import { formatOf, isNotePath, type NoteFile } from '../features/transfer/index.js';
import { UsageError, type Command } from './command.js';
import { BULK, withSpace } from './space.js';
import { callServer, locallyOrThrough } from './through-server.js';

const IMPORT_FORMATS = ['markdown', 'mem0', 'jsonl', 'json'] as const;
type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** `engram import`: a file or folder of memory into a space, here or through a server. */
export const importCommand: Command = {
  help: `  import [--format markdown|mem0|jsonl|json] <file|folder> [--space <slug>]
                            Import memory (needs ENGRAM_API_KEY): without --format the
                            reference server's JSONL or an Engram export (.json);
                            markdown: basic-memory notes or an Obsidian vault (a folder
                            or a .zip); mem0: a mem0 export (.json)`,
  async run(config, args) {
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
                  ? await transfer.importMem0(
                      auth,
                      parseJsonFile(file, await readFile(file, 'utf8')),
                    )
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
                (await notesOf(file)).map((note) => [
                  note.path,
                  new TextEncoder().encode(note.text),
                ]),
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
  },
};

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

/** A JSON file, or a usage error saying it is not one. */
function parseJsonFile(file: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${file} is not valid JSON`);
  }
}
