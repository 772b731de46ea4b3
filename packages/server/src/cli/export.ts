import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { parseArgs } from 'node:util';
import { UsageError, type Command } from './command.js';
import { BULK, withSpace } from './space.js';
import { callServer, locallyOrThrough } from './through-server.js';

/** `engram export`: a space's graph to stdout or a file, from here or through a server. */
export const exportCommand: Command = {
  // The notes after export's lines speak of mcp, import and export alike.
  help: `  export [--format jsonl|json|markdown] [--output <file>] [--space <slug>]
                            Write a space's graph (default jsonl to stdout; markdown
                            writes a zip and needs --output)

import and export go through a server's HTTP API when ENGRAM_URL names one, and
through the running engram serve when it owns the data folder.

--space names a memory space of the key's account (default: the default space).`,
  async run(config, args) {
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
        await pipeline(Readable.fromWeb(body as ReadableStream), out, {
          end: out !== process.stdout,
        });
      },
    );
  },
};
