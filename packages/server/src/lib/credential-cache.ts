import { performance } from 'node:perf_hooks';
import type { RevocableRef } from './auth-context.js';

type CredentialRef = RevocableRef;

interface Entry {
  ref: string;
  row: unknown;
  loadedAt: number;
}

/**
 * Session and API-key rows verified recently (and memberships: a person's
 * role in an account, lib/membership-ref.ts), by the hash of their secret, so
 * a burst of requests does not read the same row on every call (one statement
 * of every REST and MCP request). A credential that is revoked or whose expiry
 * moves is forgotten at once on the node that changed it and, through the
 * event bus, on every other node; an entry is trusted for `ttlMs` at most,
 * which bounds how long a change message lost between nodes goes unnoticed.
 * Expiry is still checked by the caller on every use. Only credentials that
 * exist are kept (an unknown secret always reaches the database), at most
 * `maxEntries` of them.
 */
export class CredentialCache {
  readonly #entries = new Map<string, Entry>();
  /** kind:id → hash, to forget by id. */
  readonly #hashes = new Map<string, string>();
  /** Moves on every change: a lookup that raced a change does not store what it read. */
  #generation = 0;

  constructor(
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000,
  ) {}

  async lookup<T>(
    kind: CredentialRef['kind'],
    hash: string,
    load: (hash: string) => Promise<T | undefined>,
    idOf: (row: T) => string,
  ): Promise<T | undefined> {
    const key = `${kind}:${hash}`;
    const cached = this.#entries.get(key);
    if (cached && performance.now() - cached.loadedAt < this.ttlMs) return cached.row as T;
    const generation = this.#generation;
    const row = await load(hash);
    if (row === undefined || generation !== this.#generation) return row;
    this.#store(key, `${kind}:${idOf(row)}`, row);
    return row;
  }

  /** Forgets these credentials (revoked, logged out, rolled). */
  forget(changes: CredentialRef[]): void {
    if (changes.length === 0) return;
    this.#generation += 1;
    for (const change of changes) {
      const ref = `${change.kind}:${change.id}`;
      const key = this.#hashes.get(ref);
      if (key === undefined) continue;
      this.#hashes.delete(ref);
      this.#entries.delete(key);
    }
  }

  #store(key: string, ref: string, row: unknown): void {
    this.#entries.delete(key);
    this.#entries.set(key, { ref, row, loadedAt: performance.now() });
    this.#hashes.set(ref, key);
    // Maps keep insertion order: the first entry is the oldest.
    while (this.#entries.size > this.maxEntries) {
      const [oldestKey, oldest] = this.#entries.entries().next().value as [string, Entry];
      this.#entries.delete(oldestKey);
      if (this.#hashes.get(oldest.ref) === oldestKey) this.#hashes.delete(oldest.ref);
    }
  }
}
