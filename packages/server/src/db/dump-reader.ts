import { BackupRefusedError } from './backup-file.js';

/**
 * Reads the SQL `pg_restore --data-only` writes from a PostgreSQL backup
 * (decision 038, backup-postgres.ts) without trusting it: a backup file may
 * come from anywhere, and none of its SQL text is ever run. Each line outside
 * a COPY's data must be one of the few kinds pg_dump writes for Engram's
 * data, and the tables, columns and sequences it names must be Engram's at
 * the backup's migration level. Anything else refuses the whole file.
 */

/** What a COPY or setval may name: Engram's relations at the backup's migration level. */
export interface EngramSchema {
  /** The backup's last migration, to say which schema the names were checked against. */
  level: string;
  /** Each table and the columns a COPY into it lists (all but generated ones), in order. */
  tables: Map<string, string[]>;
  sequences: Set<string>;
}

/** What a line asks for, once checked. */
export type DumpStep =
  | { kind: 'encoding'; name: string }
  | { kind: 'copy'; table: string; columns: string[] }
  | { kind: 'setval'; sequence: string; value: string; called: boolean };

/** A line outside a COPY: a statement is never this long. */
export const STATEMENT_LIMIT = 64 * 1024;
/** A row of COPY data: PostgreSQL itself takes no longer line (1 GB, its largest allocation). */
export const ROW_LIMIT = 1024 * 1024 * 1024 - 1;

/**
 * The `SET`s pg_dump and pg_restore write before the data
 * (`_doSetFixedOutputState` and the per-object settings). Read, never run:
 * the restore's own session decides its settings.
 */
const SETTINGS = new Set([
  'statement_timeout',
  'lock_timeout',
  'idle_in_transaction_session_timeout',
  'transaction_timeout',
  'client_encoding',
  'standard_conforming_strings',
  'check_function_bodies',
  'xmloption',
  'client_min_messages',
  'escape_string_warning',
  'row_security',
  'default_with_oids',
  'default_tablespace',
  'default_table_access_method',
]);
const SET_LINE = /^SET ([a-z_]+) = ('[^'\\]*'|[A-Za-z0-9_]+);$/;
const SEARCH_PATH = "SELECT pg_catalog.set_config('search_path', '', false);";
/** Newer pg_restore fences its output with these psql commands (a random key each time). */
const RESTRICT = /^\\(un)?restrict [A-Za-z0-9]+$/;
const SETVAL = /^SELECT pg_catalog\.setval\('([^']+)', (-?[0-9]{1,19}), (true|false)\);$/;
const BARE_IDENTIFIER = /[a-z_][a-z0-9_$]*/y;

/** The lines of a stream, split on `\n`, each bounded in length: memory stays bounded. */
export class LineReader {
  /** The number of the line `next` returned last (1 for the first). */
  lineNumber = 0;
  private readonly chunks: AsyncIterator<Buffer>;
  private buffer: Buffer = Buffer.alloc(0);

  constructor(source: AsyncIterable<Buffer>) {
    this.chunks = source[Symbol.asyncIterator]();
  }

  /** The next line without its `\n`, or null at the end; refuses one longer than `limit` bytes. */
  async next(limit: number): Promise<Buffer | null> {
    const parts: Buffer[] = [];
    let length = 0;
    for (;;) {
      const end = this.buffer.indexOf(0x0a);
      const part = end >= 0 ? this.buffer.subarray(0, end) : this.buffer;
      parts.push(part);
      length += part.length;
      if (length > limit) {
        throw refusal(this.lineNumber + 1, `is longer than ${limit} bytes`);
      }
      if (end >= 0) {
        this.buffer = this.buffer.subarray(end + 1);
        this.lineNumber += 1;
        return parts.length === 1 ? part : Buffer.concat(parts, length);
      }
      const chunk = await this.chunks.next();
      if (chunk.done) {
        this.buffer = Buffer.alloc(0);
        if (length === 0) return null;
        this.lineNumber += 1;
        return Buffer.concat(parts, length);
      }
      this.buffer = chunk.value;
    }
  }
}

/** A refusal naming the line of pg_restore's text and why. */
export function refusal(lineNumber: number, reason: string): BackupRefusedError {
  return new BackupRefusedError(
    `The backup was refused at line ${lineNumber} of its SQL (as pg_restore writes it): it ${reason}. Nothing was restored.`,
  );
}

/** The end of a COPY's data. */
export function isEndOfData(row: Buffer): boolean {
  return row.length === 2 && row[0] === 0x5c && row[1] === 0x2e;
}

/**
 * What a line outside a COPY's data asks for, checked against `schema`:
 * null for a line that asks nothing (blank, comment, a setting pg_dump
 * writes). `copied` holds the tables already loaded: one COPY each.
 */
export function readStatement(
  text: string,
  lineNumber: number,
  schema: EngramSchema,
  copied: ReadonlySet<string>,
): DumpStep | null {
  const refuse = (reason: string) => refusal(lineNumber, reason);
  if (text === '' || text.startsWith('--') || text === SEARCH_PATH || RESTRICT.test(text)) {
    return null;
  }
  const set = SET_LINE.exec(text);
  if (set && SETTINGS.has(set[1]!)) {
    return set[1] === 'client_encoding'
      ? { kind: 'encoding', name: set[2]!.replaceAll("'", '') }
      : null;
  }
  if (text.startsWith('COPY ')) {
    const copy = parseCopy(text);
    if (!copy) throw refuse(`holds a COPY pg_dump does not write: ${excerpt(text)}`);
    const where = `at the backup's migration level (${schema.level})`;
    const name = `${copy.schema}.${copy.table}`;
    const known = copy.schema === 'public' ? schema.tables.get(copy.table) : undefined;
    if (!known) throw refuse(`copies into ${name}, which is not one of Engram's tables ${where}`);
    if (copied.has(copy.table)) throw refuse(`copies into ${name} a second time`);
    const seen = new Set<string>();
    for (const column of copy.columns) {
      if (!known.includes(column)) {
        throw refuse(`copies into column "${column}", which ${name} does not have ${where}`);
      }
      if (seen.has(column)) throw refuse(`names column "${column}" of ${name} twice`);
      seen.add(column);
    }
    const missing = known.filter((column) => !seen.has(column));
    if (missing.length > 0) {
      throw refuse(
        `leaves out column(s) ${missing.join(', ')} of ${name}, which it has ${where}: the data is not of that schema`,
      );
    }
    return { kind: 'copy', table: copy.table, columns: copy.columns };
  }
  const setval = SETVAL.exec(text);
  if (setval) {
    const sequence = parseQualified(setval[1]!, 0);
    if (!sequence || sequence.at !== setval[1]!.length) {
      throw refuse(`sets a sequence pg_dump does not name that way: ${excerpt(text)}`);
    }
    if (sequence.schema !== 'public' || !schema.sequences.has(sequence.name)) {
      throw refuse(
        `sets ${sequence.schema}.${sequence.name}, which is not one of Engram's sequences at the backup's migration level (${schema.level})`,
      );
    }
    return {
      kind: 'setval',
      sequence: sequence.name,
      value: setval[2]!,
      called: setval[3] === 'true',
    };
  }
  throw refuse(`holds ${excerpt(text)}, which is not a statement pg_dump writes for Engram's data`);
}

/** `COPY schema.table (a, b) FROM stdin;`, with names quoted as pg_dump quotes them. */
function parseCopy(text: string): { schema: string; table: string; columns: string[] } | null {
  const target = parseQualified(text, 'COPY '.length);
  if (!target || !text.startsWith(' (', target.at)) return null;
  const columns: string[] = [];
  let at = target.at + 2;
  for (;;) {
    const column = identifier(text, at);
    if (!column) return null;
    columns.push(column.name);
    at = column.at;
    if (text.startsWith(', ', at)) at += 2;
    else if (text.startsWith(')', at)) break;
    else return null;
  }
  return text.slice(at) === ') FROM stdin;'
    ? { schema: target.schema, table: target.name, columns }
    : null;
}

function parseQualified(text: string, at: number) {
  const schema = identifier(text, at);
  if (!schema || text[schema.at] !== '.') return null;
  const name = identifier(text, schema.at + 1);
  return name ? { schema: schema.name, name: name.name, at: name.at } : null;
}

/** An identifier as pg_dump writes it: bare when lower case, else in double quotes. */
function identifier(text: string, at: number): { name: string; at: number } | null {
  if (text[at] !== '"') {
    BARE_IDENTIFIER.lastIndex = at;
    const bare = BARE_IDENTIFIER.exec(text);
    return bare ? { name: bare[0], at: at + bare[0].length } : null;
  }
  let name = '';
  for (let from = at + 1; ;) {
    const close = text.indexOf('"', from);
    if (close < 0) return null;
    name += text.slice(from, close);
    if (text[close + 1] !== '"') return name ? { name, at: close + 1 } : null;
    name += '"';
    from = close + 2;
  }
}

/** A line as the operator may see it: control characters visible, cut short. */
function excerpt(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
