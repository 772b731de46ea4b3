import { badRequest } from '../../lib/errors.js';
import type { NoteFile } from './markdown.js';
import { inflateNotes } from './zip-inflate.js';

/**
 * Reading the notes of a zip (the Markdown import, docs/import-export.md)
 * with bounded work whatever the zip says. The central directory is read
 * here, and every note it names is checked before a byte is inflated: at
 * most ZIP_MAX_FILES entries, at most ZIP_MAX_UNCOMPRESSED_BYTES declared in
 * all, a stored or deflated body that lies inside the zip, and no two notes
 * sharing bytes. One compressed body named by many entries would otherwise be
 * inflated once per entry (a zip bomb that costs CPU, not memory). Then a
 * worker thread (zip-inflate.ts) inflates each note only up to the size it
 * declares, so the server answers other requests meanwhile.
 */

/** A zip the import reads at most: files in it, and bytes once uncompressed. */
export const ZIP_MAX_FILES = 10_000;
export const ZIP_MAX_UNCOMPRESSED_BYTES = 50 * 1024 * 1024;

/** A note in the zip, checked: where its compressed bytes lie and what it declares. */
interface ZipNote {
  path: string;
  /** 0 stored, 8 deflated. */
  method: number;
  /** The uncompressed size its central directory entry declares. */
  size: number;
  /** Its local header's offset: its bytes run from here to `end`. */
  header: number;
  /** Where its compressed data start and end. */
  start: number;
  end: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END_OF_DIRECTORY = 0x06064b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
/** A 32-bit field holding this says its value is in the zip64 extra field. */
const IN_ZIP64 = 0xffffffff;
/** The end record is 22 bytes and may be followed by a comment of up to 65,535. */
const END_SEARCH = 22 + 0xffff;

/** A note to read: a `.md` file outside hidden folders. */
export function wanted(path: string): boolean {
  if (!/\.md$/i.test(path)) return false;
  return !path.split('/').some((part) => part.startsWith('.') || part === '__MACOSX');
}

const unreadable = (why: string) => badRequest('body', `Not a readable zip: ${why}`);
const tooBig = () =>
  badRequest(
    'body',
    `The zip's notes are more than ${ZIP_MAX_UNCOMPRESSED_BYTES / (1024 * 1024)} MB uncompressed`,
  );
const refused = (path: string, why: string) => badRequest(`files.${path}`, `${path}: ${why}`);

/**
 * The `.md` files of a zip, sorted by path. Refused with a 400 naming `body`
 * past ZIP_MAX_FILES entries or ZIP_MAX_UNCOMPRESSED_BYTES, or naming the
 * note (`files.<path>`) whose entry is unreadable, overlaps another, or
 * inflates to other than the size it declares. Hidden folders (`.obsidian/`,
 * `__MACOSX/`) and other files are left out, unread.
 */
export async function readZip(bytes: Uint8Array): Promise<NoteFile[]> {
  const notes = zipNotes(bytes);
  if (notes.length === 0) return [];
  const inflated = await inflateNotes(
    notes.map((note) => ({
      path: note.path,
      method: note.method,
      size: note.size,
      // A copy of their own (not a view of the body), moved to the worker.
      data: new Uint8Array(bytes.subarray(note.start, note.end)),
    })),
    ZIP_MAX_UNCOMPRESSED_BYTES,
  );
  if ('refused' in inflated) throw badRequest(inflated.refused.field, inflated.refused.message);
  return inflated.files;
}

/** The notes a zip's central directory names, checked (see readZip); nothing inflated. */
function zipNotes(bytes: Uint8Array): ZipNote[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = bytes.length;
  const u16 = (at: number) => view.getUint16(at, true);
  const u32 = (at: number) => view.getUint32(at, true);
  const u64 = (at: number) => u32(at) + u32(at + 4) * 2 ** 32;
  const fits = (at: number, size: number) => at >= 0 && at + size <= length;

  let end = length - 22;
  while (end >= 0 && end >= length - END_SEARCH && u32(end) !== END_OF_DIRECTORY) end--;
  if (end < 0 || end < length - END_SEARCH) throw unreadable('it has no end of central directory');
  let count = u16(end + 10);
  let at = u32(end + 16);
  if (end >= 20 && u32(end - 20) === ZIP64_LOCATOR) {
    const zip64End = u64(end - 12);
    if (fits(zip64End, 56) && u32(zip64End) === ZIP64_END_OF_DIRECTORY) {
      count = u64(zip64End + 32);
      at = u64(zip64End + 48);
    }
  }
  if (count > ZIP_MAX_FILES) {
    throw badRequest('body', `The zip holds more than ${ZIP_MAX_FILES} files`);
  }

  const notes: ZipNote[] = [];
  let declared = 0;
  for (let index = 0; index < count; index++) {
    if (!fits(at, 46) || u32(at) !== DIRECTORY_ENTRY) {
      throw unreadable(`its central directory ends at entry ${index + 1} of ${count}`);
    }
    const flags = u16(at + 8);
    const method = u16(at + 10);
    let compressed = u32(at + 20);
    let size = u32(at + 24);
    let header = u32(at + 42);
    const nameEnd = at + 46 + u16(at + 28);
    const extraEnd = nameEnd + u16(at + 30);
    const next = extraEnd + u16(at + 32);
    if (next > length) throw unreadable(`its central directory entry ${index + 1} is cut short`);
    // Bit 11: the name is UTF-8; else it is taken as Latin-1, as fflate's reader did.
    const path = Buffer.from(bytes.buffer, bytes.byteOffset + at + 46, nameEnd - at - 46).toString(
      flags & 0x800 ? 'utf8' : 'latin1',
    );
    at = next;
    if (!wanted(path)) continue;

    if (compressed === IN_ZIP64 || size === IN_ZIP64 || header === IN_ZIP64) {
      const sizes = zip64Sizes(u16, u64, nameEnd, extraEnd, {
        size: size === IN_ZIP64,
        compressed: compressed === IN_ZIP64,
        header: header === IN_ZIP64,
      });
      if (!sizes) throw refused(path, 'its zip64 sizes are missing');
      size = sizes.size ?? size;
      compressed = sizes.compressed ?? compressed;
      header = sizes.header ?? header;
    }
    declared += size;
    if (declared > ZIP_MAX_UNCOMPRESSED_BYTES) throw tooBig();
    if (flags & 0x1) throw refused(path, 'it is encrypted');
    if (method !== 0 && method !== 8) {
      throw refused(
        path,
        `compressed with method ${method}; only stored or deflated files are read`,
      );
    }
    if (!fits(header, 30) || u32(header) !== LOCAL_HEADER) {
      throw refused(path, 'its local header is not where the central directory says');
    }
    const start = header + 30 + u16(header + 26) + u16(header + 28);
    if (!fits(start, compressed)) throw refused(path, 'its data run past the end of the zip');
    if (method === 0 && compressed !== size) {
      throw refused(path, `stored as ${compressed} bytes but declares ${size}`);
    }
    notes.push({ path, method, size, header, start, end: start + compressed });
  }
  refuseOverlaps(notes);
  // The same path twice: the later entry is the note, as fflate's reader kept it.
  const byPath = new Map(notes.map((note) => [note.path, note]));
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The zip64 extra field's values (id 1) for the fields that said so, in the order the format sets. */
function zip64Sizes(
  u16: (at: number) => number,
  u64: (at: number) => number,
  from: number,
  to: number,
  missing: { size: boolean; compressed: boolean; header: boolean },
): { size?: number; compressed?: number; header?: number } | undefined {
  for (let at = from; at + 4 <= to; at += 4 + u16(at + 2)) {
    if (u16(at) !== 1) continue;
    const found: { size?: number; compressed?: number; header?: number } = {};
    let field = at + 4;
    const fieldEnd = Math.min(to, at + 4 + u16(at + 2));
    for (const key of ['size', 'compressed', 'header'] as const) {
      if (!missing[key]) continue;
      if (field + 8 > fieldEnd) return undefined;
      found[key] = u64(field);
      field += 8;
    }
    return found;
  }
  return undefined;
}

/**
 * Each note's bytes (its local header and data) must be its own: entries
 * sharing data are how one compressed body is inflated many times.
 */
function refuseOverlaps(notes: ZipNote[]): void {
  const byOffset = [...notes].sort((a, b) => a.header - b.header);
  for (let index = 1; index < byOffset.length; index++) {
    const before = byOffset[index - 1]!;
    const note = byOffset[index]!;
    if (note.header < before.end) {
      throw refused(note.path, `its data overlap those of ${before.path}`);
    }
  }
}
