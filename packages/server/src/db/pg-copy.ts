import { once } from 'node:events';
import type { Duplex } from 'node:stream';
import type pg from 'pg';

/**
 * `COPY … FROM STDIN` over a `pg` client, for the PostgreSQL restore
 * (backup-postgres.ts). `pg` speaks the copy protocol but has no stream for
 * it, and pg-copy-streams is not a dependency: this is the small part of it
 * we need. Rows are gathered into messages of about 64 KB and written only
 * while the socket keeps up, so memory stays bounded however large the table.
 */

/** The parts of `pg`'s connection the copy protocol uses (its types leave them out). */
interface CopyConnection {
  stream: Duplex;
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
}

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = Buffer.from('\n');

/** One `COPY … FROM STDIN`: `write` rows, then `end` (or `fail`); `done` settles with the server's answer. */
export class CopyIn implements pg.Submittable {
  /** Settles when the server finished the statement: resolves, or rejects with its error. */
  readonly done: Promise<void>;
  private connection: CopyConnection | undefined;
  private error: Error | undefined;
  private ready: Promise<void>;
  private readyNow!: () => void;
  private finish!: () => void;
  private fault!: (error: Error) => void;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly text: string) {
    this.ready = new Promise<void>((resolve) => (this.readyNow = resolve));
    this.done = new Promise<void>((resolve, reject) => {
      this.finish = resolve;
      this.fault = reject;
    });
    // Whoever waits on a write sees the error there; `done` is awaited last.
    this.done.catch(() => undefined);
  }

  /** Starts the statement on `client` (after what it already queued). */
  static start(client: pg.Client, text: string): CopyIn {
    return client.query(new CopyIn(text));
  }

  submit(connection: pg.Connection): void {
    (connection as unknown as CopyConnection).query(this.text);
  }

  handleCopyInResponse(connection: pg.Connection): void {
    this.connection = connection as unknown as CopyConnection;
    this.readyNow();
  }

  handleReadyForQuery(): void {
    this.finish();
  }

  handleError(error: Error): void {
    this.error = error;
    this.fault(error);
    this.readyNow();
  }

  // The other answers a query may get; a COPY FROM STDIN gets none of them.
  handleCommandComplete(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  /** Adds one row (a line of COPY's text format, without its end), sending when enough gathered. */
  async writeLine(row: Buffer): Promise<void> {
    this.pending.push(row, NEWLINE);
    this.pendingBytes += row.length + 1;
    if (this.pendingBytes >= CHUNK_BYTES) await this.flush();
  }

  /** Sends the rows left and ends the copy; resolves with the server's answer. */
  async end(): Promise<void> {
    await this.flush();
    this.connection!.endCopyFrom();
    return this.done;
  }

  /** Abandons the copy: the server refuses it, and with it the transaction. */
  async fail(reason: string): Promise<void> {
    await this.ready;
    if (!this.error) this.connection!.sendCopyFail(reason);
    await this.done.catch(() => undefined);
  }

  private async flush(): Promise<void> {
    await this.ready;
    if (this.error) throw this.error;
    if (this.pending.length === 0) return;
    const chunk = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    const connection = this.connection!;
    connection.sendCopyFromChunk(chunk);
    // A full socket: wait until it drains, or until the server answers (an error).
    if (connection.stream.writableNeedDrain) {
      await Promise.race([once(connection.stream, 'drain'), this.done]);
    }
    if (this.error) throw this.error;
  }
}
