import type { AuthContext, Credential, RevocableRef } from '../lib/auth-context.js';
import { membershipRef } from '../lib/membership-ref.js';
import type { CredentialChange, EventBus } from './event-bus.js';

/** The credential's current expiry, or undefined when it no longer exists (deleted, ended). */
export type CredentialCheck = (
  credential: CredentialChange,
) => Promise<{ expiresAt: Date | null } | undefined>;

/** Why a held connection ended; sent to the client as the close reason. */
export type EndReason = 'revoked' | 'expired';

interface Watched {
  credential: Omit<Credential, 'kind'> & { kind: RevocableRef['kind'] };
  holders: Set<(reason: EndReason) => void>;
}

/** How often held credentials' expiry is compared with the clock. */
const EXPIRY_TICK_MS = 1_000;
/** How often every held credential is checked again, in case a change message was lost. */
const RECHECK_MS = 60_000;

/**
 * Ends what was opened with a credential (sockets, MCP sessions) the moment
 * the credential stops working: when any node says it changed (deleted,
 * rolled, ended by a password change), and when it expires by the clock.
 */
export class CredentialWatch {
  private readonly watched = new Map<string, Watched>();
  private readonly stopListening: () => void;
  private readonly expiryTimer: NodeJS.Timeout;
  private readonly recheckTimer: NodeJS.Timeout;

  constructor(
    bus: EventBus,
    private readonly check: CredentialCheck,
    private readonly now: () => Date,
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.stopListening = bus.onCredentialsChanged((changes) => {
      for (const change of changes) void this.recheck(change.id);
    });
    this.expiryTimer = setInterval(() => this.endExpired(), EXPIRY_TICK_MS);
    this.expiryTimer.unref();
    this.recheckTimer = setInterval(() => {
      for (const id of this.watched.keys()) void this.recheck(id);
    }, RECHECK_MS);
    this.recheckTimer.unref();
  }

  /**
   * Calls `end` once when the credential of `auth` is revoked or expires, or
   * the person's membership of the account it acts in ends or changes role.
   * Returns the function that stops watching (call it when the holder closes).
   */
  watch(auth: AuthContext, end: (reason: EndReason) => void): () => void {
    let ended = false;
    let stops: (() => void)[] = [];
    const stopWatching = () => {
      for (const stop of stops) stop();
    };
    const once = (reason: EndReason) => {
      if (ended) return;
      ended = true;
      // Held twice (credential and membership): ending by one lets go of the other.
      stopWatching();
      end(reason);
    };
    const membership = membershipRef(auth.accountId, auth.userId, auth.role);
    stops = [
      this.hold({ ...auth.credential }, once),
      this.hold({ ...membership, expiresAt: null }, once),
    ];
    return stopWatching;
  }

  private hold(credential: Watched['credential'], once: (reason: EndReason) => void): () => void {
    let entry = this.watched.get(credential.id);
    if (!entry) {
      entry = { credential, holders: new Set() };
      this.watched.set(credential.id, entry);
      // A change announced while the holder was being opened (after the
      // credential was checked, before this watch) would be missed: check once now.
      void this.recheck(credential.id);
    }
    const holders = entry.holders;
    holders.add(once);
    if (this.isExpired(entry.credential))
      queueMicrotask(() => this.endAll(credential.id, 'expired'));
    return () => {
      holders.delete(once);
      if (holders.size === 0 && this.watched.get(credential.id)?.holders === holders) {
        this.watched.delete(credential.id);
      }
    };
  }

  /** Holders currently watched (tests and diagnostics). */
  get size(): number {
    // Each holder is held under its credential and its membership: count it once.
    const holders = new Set<unknown>();
    for (const entry of this.watched.values())
      for (const holder of entry.holders) holders.add(holder);
    return holders.size;
  }

  close(): void {
    this.stopListening();
    clearInterval(this.expiryTimer);
    clearInterval(this.recheckTimer);
    this.watched.clear();
  }

  private isExpired(credential: Watched['credential']): boolean {
    return credential.expiresAt !== null && credential.expiresAt.getTime() <= this.now().getTime();
  }

  private endExpired(): void {
    for (const [id, entry] of this.watched) {
      if (this.isExpired(entry.credential)) this.endAll(id, 'expired');
    }
  }

  private async recheck(id: string): Promise<void> {
    const entry = this.watched.get(id);
    if (!entry) return;
    try {
      const status = await this.check({ kind: entry.credential.kind, id });
      if (!status) {
        this.endAll(id, 'revoked');
        return;
      }
      entry.credential.expiresAt = status.expiresAt;
      if (this.isExpired(entry.credential)) this.endAll(id, 'expired');
    } catch (error) {
      // The database is unreachable: keep the holders; the next check decides.
      this.onError(error);
    }
  }

  private endAll(id: string, reason: EndReason): void {
    const entry = this.watched.get(id);
    if (!entry) return;
    this.watched.delete(id);
    for (const end of entry.holders) {
      try {
        end(reason);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
