import { Worker } from 'node:worker_threads';
import type { NoteFile } from './markdown.js';

/** A note's compressed bytes and what its zip entry declares (zip-reader.ts checked them). */
export interface PackedNote {
  path: string;
  /** 0 stored, 8 deflated. */
  method: number;
  size: number;
  data: Uint8Array;
}

/** The notes as text, or why one is refused (the field to name and the message). */
export type Inflated = { files: NoteFile[] } | { refused: { field: string; message: string } };

/**
 * The worker: inflates each note with Node's zlib, which stops once the
 * output passes `maxOutputLength` (at most one 16 KB chunk past it), so a
 * note is inflated only up to the size it declares. Then it checks the text
 * is UTF-8. Refuses at the first note that fails, and past `limit` bytes in
 * all. Plain CommonJS run with `eval`, like db/pglite-worker.ts's, so it
 * runs the same under tsx, vitest and the compiled server.
 */
const WORKER_SOURCE = /* js */ `
  const { parentPort } = require('node:worker_threads');
  const { inflateRawSync } = require('node:zlib');

  const inflate = ({ notes, limit }) => {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const files = [];
    let total = 0;
    for (const { path, method, size, data } of notes) {
      const refuse = (message, field = 'files.' + path) => ({ refused: { field, message } });
      let bytes = data;
      if (method === 8 && data.length > 0) {
        try {
          bytes = inflateRawSync(data, { maxOutputLength: Math.max(size, 1) });
        } catch (error) {
          if (error && error.code === 'ERR_BUFFER_TOO_LARGE') {
            return refuse(path + ': it inflates past the ' + size + ' bytes it declares');
          }
          return refuse(path + ': its deflated data are unreadable (' + (error && error.message) + ')');
        }
      }
      if (bytes.length > size) {
        return refuse(path + ': it inflates past the ' + size + ' bytes it declares');
      }
      if (bytes.length < size) {
        return refuse(path + ': it inflates to ' + bytes.length + ' bytes, not the ' + size + ' it declares');
      }
      total += bytes.length;
      if (total > limit) {
        return refuse(
          "The zip's notes are more than " + limit / (1024 * 1024) + ' MB uncompressed',
          'body',
        );
      }
      try {
        files.push({ path, text: decoder.decode(bytes) });
      } catch {
        return refuse(path + ': not UTF-8 text');
      }
    }
    return { files };
  };

  parentPort.once('message', (job) => parentPort.postMessage(inflate(job)));
`;

/** The job running, or the last one: jobs run one after another (see inflateNotes). */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Inflates the notes in a worker thread of their own, so the event loop that
 * serves requests never waits on it. One job at a time on the node: a burst
 * of imports takes one core and one job's memory (at most `limit` bytes and
 * their text), not one of each per import.
 */
export function inflateNotes(notes: PackedNote[], limit: number): Promise<Inflated> {
  const job = queue.then(() => inflateInWorker(notes, limit));
  queue = job.catch(() => undefined);
  return job;
}

function inflateInWorker(notes: PackedNote[], limit: number): Promise<Inflated> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // A job holds at most `limit` bytes and their text; past this the worker
      // alone stops (an error here, a 500), never the server.
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      done();
      void worker.terminate();
    };
    worker.once('message', (reply: Inflated) => settle(() => resolve(reply)));
    worker.once('error', (error) =>
      settle(() => reject(new Error(`The zip reader stopped: ${error.message}`))),
    );
    worker.once('exit', (code) =>
      settle(() => reject(new Error(`The zip reader exited with code ${code}`))),
    );
    // Each note's bytes are a copy of their own (zip-reader.ts): moved, not copied again.
    worker.postMessage(
      { notes, limit },
      notes.map((note) => note.data.buffer as ArrayBuffer),
    );
  });
}
