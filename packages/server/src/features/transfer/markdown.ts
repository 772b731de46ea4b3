import { zipSync } from 'fflate';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { badRequest, invalidInput } from '../../lib/errors.js';

/**
 * Markdown notes in basic-memory's format, which also reads an Obsidian vault
 * (docs/import-export.md):
 *
 * ```md
 * ---
 * title: Alice
 * type: person
 * ---
 *
 * # Alice
 *
 * ## Observations
 * - [role] Leads the platform team #work (since 2024)
 *
 * ## Relations
 * - works_at [[Acme]]
 * ```
 *
 * A note is an entity: its name the front matter's `title` (else the file's
 * name), its type `type` (else `note`). `- [category] text` is an observation
 * whose text is `text` (tags and context stay in it) and whose metadata holds
 * `{ category }`; `- relation_type [[Target]]` is a relation. Outside the
 * `## Observations` and `## Relations` sections, a list item is an
 * observation unless it is a relation, each paragraph is an observation, and
 * a plain `[[wikilink]]` is a `links_to` relation (how an Obsidian vault
 * opens). What the notes cannot say in that format — entity metadata,
 * aliases, observation metadata beyond the category, relations whose names
 * a wikilink cannot hold — goes in front matter (`metadata`, `aliases`,
 * `observation_metadata`, `relations`), so an export reads back losslessly.
 *
 * Parsing and writing here are pure; the service writes what they give.
 */

export interface NoteFile {
  /** Its path in the folder or zip, `/`-separated. */
  path: string;
  text: string;
}

export interface NoteObservation {
  content: string;
  metadata?: Record<string, unknown>;
}

export interface ParsedNote {
  path: string;
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  aliases?: unknown;
  observations: NoteObservation[];
  /** Targets as written (a note's title or its file's name); resolved by the caller. */
  relations: { type: string; to: string }[];
}

/** What an export writes per entity. */
export interface NoteEntity {
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  aliases: string[];
  observations: { content: string; metadata: Record<string, unknown> | null }[];
  relations: { type: string; to: string }[];
}

// ── reading ────────────────────────────────────────────────────────────────

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const CATEGORY = /^\[([^\]\n]*)\]\s+([\s\S]*)$/;
const RELATION = /^([^[\]\n]+?)\s+\[\[([^\]\n]+)\]\](?:\s+\(([^)\n]*)\))?\s*$/;
const WIKILINK = /\[\[([^\]\n]+)\]\]/g;
const KNOWN_KEYS = new Set([
  'title',
  'type',
  'metadata',
  'aliases',
  'observation_metadata',
  'relations',
]);

/** The note a wikilink names: before `|` (its label) and `#` (a heading in it). */
function linkTarget(raw: string): string {
  return raw.split('|')[0]!.split('#')[0]!.trim();
}

/** The file's name without folders and `.md`. */
export function baseName(path: string): string {
  return (path.split('/').at(-1) ?? path).replace(/\.md$/i, '');
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function frontMatterOf(
  path: string,
  text: string,
): { data: Record<string, unknown>; body: string } {
  const match = FRONT_MATTER.exec(text);
  if (!match) return { data: {}, body: text };
  let data: unknown;
  try {
    data = parseYaml(match[1]!, { maxAliasCount: 100, uniqueKeys: false }) ?? {};
  } catch (error) {
    throw badRequest(
      `files.${path}`,
      `${path}: front matter is not valid YAML (${(error as Error).message.split('\n')[0]})`,
    );
  }
  if (!isObject(data)) {
    throw badRequest(`files.${path}`, `${path}: front matter must be a YAML mapping`);
  }
  return { data, body: text.slice(match[0].length) };
}

/** One note read: its entity's name, type, metadata, observations and relations (targets unresolved). */
export function parseNote(file: NoteFile): ParsedNote {
  const { path } = file;
  const { data, body } = frontMatterOf(path, file.text.replace(/^\uFEFF/, ''));
  const field = (key: string) => `files.${path}.${key}`;
  const title = data['title'];
  if (title !== undefined && typeof title !== 'string' && typeof title !== 'number') {
    throw badRequest(field('title'), `${path}: title must be text`);
  }
  const type = data['type'];
  if (type !== undefined && typeof type !== 'string') {
    throw badRequest(field('type'), `${path}: type must be text`);
  }
  const given = data['metadata'];
  if (given !== undefined && !isObject(given)) {
    throw badRequest(field('metadata'), `${path}: metadata must be a mapping`);
  }
  // Our own export keeps metadata under `metadata`; another tool's keys (tags, permalink, dates…) are kept beside it.
  const metadata: Record<string, unknown> = { ...(given ?? {}) };
  for (const [key, value] of Object.entries(data)) {
    if (!KNOWN_KEYS.has(key)) metadata[key] = value;
  }
  const extraMetadata = data['observation_metadata'];
  if (extraMetadata !== undefined && !isObject(extraMetadata)) {
    throw badRequest(
      field('observation_metadata'),
      `${path}: observation_metadata must map observation numbers to mappings`,
    );
  }
  const note: ParsedNote = {
    path,
    name: title === undefined ? baseName(path) : String(title),
    type: type ?? 'note',
    metadata,
    ...(data['aliases'] !== undefined ? { aliases: data['aliases'] } : {}),
    observations: [],
    relations: [],
  };
  const listed = data['relations'];
  if (listed !== undefined) {
    if (
      !Array.isArray(listed) ||
      !listed.every(
        (item) => isObject(item) && typeof item.type === 'string' && typeof item.to === 'string',
      )
    ) {
      throw badRequest(field('relations'), `${path}: relations must be a list of { type, to }`);
    }
    for (const item of listed as { type: string; to: string }[]) {
      note.relations.push({ type: item.type, to: item.to });
    }
  }
  readBody(body, note);
  if (extraMetadata) {
    for (const [key, value] of Object.entries(extraMetadata)) {
      const observation = note.observations[Number(key) - 1];
      if (!observation || !isObject(value)) {
        throw badRequest(
          field(`observation_metadata.${key}`),
          `${path}: observation_metadata.${key} names no observation of the note, or is not a mapping`,
        );
      }
      observation.metadata = value;
    }
  }
  return note;
}

/** Reads a note's body into its observations and relations. */
function readBody(body: string, note: ParsedNote): void {
  let section: 'observations' | 'relations' | 'other' = 'other';
  /** The list item being read (continuation lines indented by two spaces join it). */
  let item: string[] | undefined;
  let paragraph: string[] = [];
  const links = (text: string) => {
    for (const match of text.matchAll(WIKILINK)) {
      const to = linkTarget(match[1]!);
      if (to) note.relations.push({ type: 'links_to', to });
    }
  };
  const endParagraph = () => {
    const text = paragraph.join('\n').trim();
    paragraph = [];
    if (!text) return;
    note.observations.push({ content: text });
    links(text);
  };
  const endItem = () => {
    if (!item) return;
    const text = item.join('\n');
    item = undefined;
    if (section === 'relations' || section === 'other') {
      const relation = RELATION.exec(text);
      if (relation) {
        const to = linkTarget(relation[2]!);
        if (to) note.relations.push({ type: relation[1]!.trim(), to });
        return;
      }
      if (section === 'relations') return;
    }
    const observation = observationOf(text);
    if (!observation) return;
    note.observations.push(observation);
    // Wikilinks inside our own Observations section stay text; elsewhere they link.
    if (section === 'other') links(observation.content);
  };
  let firstHeading = true;
  for (const line of body.split(/\r?\n/)) {
    if (item && /^ {2}/.test(line)) {
      item.push(line.replace(/^ {2}/, ''));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      endItem();
      endParagraph();
      const title = heading[2]!.trim().toLowerCase();
      if (heading[1] === '#' && firstHeading) {
        firstHeading = false;
        continue;
      }
      section =
        title === 'observations' ? 'observations' : title === 'relations' ? 'relations' : 'other';
      continue;
    }
    const bullet = /^[-*+]\s+(.*)$/.exec(line);
    if (bullet) {
      endItem();
      endParagraph();
      item = [bullet[1]!];
      continue;
    }
    if (line.trim() === '') {
      endItem();
      endParagraph();
      continue;
    }
    endItem();
    paragraph.push(line);
  }
  endItem();
  endParagraph();
}

/** `[category] text` (category kept in metadata), `\[…` (an escaped bracket), or plain text. */
function observationOf(text: string): NoteObservation | undefined {
  if (text.startsWith('\\')) {
    const content = text.slice(1).trim();
    return content ? { content } : undefined;
  }
  const categorized = CATEGORY.exec(text);
  if (categorized) {
    const category = categorized[1]!.trim();
    const content = categorized[2]!.trim();
    if (!content) return undefined;
    return category ? { content, metadata: { category } } : { content };
  }
  const content = text.trim();
  return content ? { content } : undefined;
}

// ── writing ─────────────────────────────────────────────────────────────────

/** Characters a file name may not hold on common systems, and control characters. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f<>:"/\\|?*#^[\]]/g;
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

/**
 * How much of a name its file name is made from: enough for the bytes kept,
 * and a bound on the work whatever the name (rows stored before today's name
 * limit may be far longer).
 */
const NAME_READ = 1_000;
/** Room for " (n).md" within the 255 bytes most systems allow. */
const FILE_NAME_BYTES = 200;
/** A surrogate without its pair (or a pair the cut above split): no file name can hold it. */
const LONE_SURROGATE = /\p{Cs}/gu;

/** The file names given so far (lower-cased), and per base name the next number to try. */
export interface TakenNames {
  files: Set<string>;
  next: Map<string, number>;
}

export const takenNames = (): TakenNames => ({ files: new Set(), next: new Map() });

/** The longest prefix of `text` whose UTF-8 encoding fits in `max` bytes, whole characters only. */
function bytePrefix(text: string, max: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes > max) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * A file name for an entity, unique among `taken` (compared without case).
 * Linear in the part of the name read, and names sharing a base (the same
 * first 200 bytes, or names alike but for case or unsafe characters) are
 * numbered from where the last one stopped, not from 2 again.
 */
export function fileNameFor(name: string, taken: TakenNames): string {
  let base = name
    .slice(0, NAME_READ)
    .replace(UNSAFE, '-')
    .replace(LONE_SURROGATE, '-')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s-]+/, '');
  base = bytePrefix(base, FILE_NAME_BYTES).replace(/[.\s]+$/, '');
  if (!base || RESERVED.test(base)) base = `entity${base ? `-${base}` : ''}`;
  let file = `${base}.md`;
  if (taken.files.has(file.toLowerCase())) {
    const key = base.toLowerCase();
    let n = taken.next.get(key) ?? 2;
    while (taken.files.has(`${base} (${n}).md`.toLowerCase())) n++;
    taken.next.set(key, n + 1);
    file = `${base} (${n}).md`;
  }
  taken.files.add(file.toLowerCase());
  return file;
}

/** Whether a name or relation type reads back from `- type [[name]]` as it is. */
const linkable = (name: string) => name.trim() === name && /^[^[\]|#\n\r^]+$/.test(name);
const typeFits = (type: string) =>
  type.trim() === type && type.length > 0 && /^[^[\]\n\r]+$/.test(type) && !type.startsWith('\\');

/** An observation as a list item that reads back to the same text and category. */
function observationLine(content: string, category: string | undefined): string {
  const text = content.replace(/\r?\n/g, '\n  ');
  if (category !== undefined) return `- [${category}] ${text}`;
  return /^[[\\]/.test(content) ? `- \\${text}` : `- ${text}`;
}

/** One entity's note. */
export function renderNote(entity: NoteEntity): string {
  const front: Record<string, unknown> = { title: entity.name, type: entity.type };
  if (entity.aliases.length > 0) front['aliases'] = entity.aliases;
  if (Object.keys(entity.metadata).length > 0) front['metadata'] = entity.metadata;
  const extra: Record<string, unknown> = {};
  const lines: string[] = [];
  entity.observations.forEach((observation, index) => {
    const metadata = observation.metadata;
    const category = metadata?.['category'];
    const bracketed =
      typeof category === 'string' &&
      category.trim() === category &&
      category.length > 0 &&
      !/[\]\n\r]/.test(category);
    // The category alone reads back from its brackets; any other metadata is kept whole.
    const alone = bracketed && Object.keys(metadata!).length === 1;
    if (metadata && !alone) extra[String(index + 1)] = metadata;
    lines.push(observationLine(observation.content, bracketed ? category : undefined));
  });
  if (Object.keys(extra).length > 0) front['observation_metadata'] = extra;
  const written: string[] = [];
  const listed: { type: string; to: string }[] = [];
  for (const relation of entity.relations) {
    if (linkable(relation.to) && typeFits(relation.type) && relation.type !== 'links_to') {
      written.push(`- ${relation.type} [[${relation.to}]]`);
    } else if (linkable(relation.to) && relation.type === 'links_to') {
      written.push(`- links_to [[${relation.to}]]`);
    } else {
      listed.push(relation);
    }
  }
  if (listed.length > 0) front['relations'] = listed;
  const parts = [`---\n${stringifyYaml(front, { lineWidth: 0 }).trimEnd()}\n---`, ''];
  parts.push(`# ${entity.name.replace(/\r?\n/g, ' ')}`, '');
  if (lines.length > 0) parts.push('## Observations', ...lines, '');
  if (written.length > 0) parts.push('## Relations', ...written, '');
  return parts.join('\n');
}

/** The notes as a zip (deflated), one file per entity with safe, unique names. */
export function zipNotes(entities: Iterable<NoteEntity>): Uint8Array {
  const taken = takenNames();
  const files: Record<string, Uint8Array> = {};
  const encoder = new TextEncoder();
  for (const entity of entities) {
    files[fileNameFor(entity.name, taken)] = encoder.encode(renderNote(entity));
  }
  return zipSync(files, { level: 6 });
}

/** 400 for a body that is not a zip at all (checked by its signature). */
export function assertZip(bytes: Uint8Array): void {
  const empty = bytes.length === 22 && bytes[0] === 0x50 && bytes[1] === 0x4b;
  if (empty) return;
  if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b) {
    throw invalidInput('The markdown import takes a zip of .md files (application/zip)');
  }
}
