/**
 * The account this tab acts in (issue 40, Teams): null is the person's own
 * account, the server's default. Chosen in the header's account switcher (or
 * by accepting an invitation); the API client names it in every request
 * (ACCOUNT_HEADER) and the realtime client in its address (ACCOUNT_QUERY).
 *
 * Each tab keeps its own choice (sessionStorage, so a reload stays in it):
 * a switch in one tab never changes the account another tab's screens and
 * cache belong to. The latest choice is also kept in localStorage, so a new
 * tab opens in the account last used.
 */
const TAB_KEY = 'engram_account';
const LAST_KEY = 'engram_last_account';

function read(storage: Storage, key: string): string | null {
  try {
    const value = storage.getItem(key);
    return value === null || value === '' ? null : value;
  } catch {
    return null;
  }
}

function write(storage: Storage, key: string, value: string | null): void {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    // Storage refused (private mode, quota): the choice lasts until the tab reloads.
  }
}

let current: string | null = read(sessionStorage, TAB_KEY) ?? read(localStorage, LAST_KEY);
const listeners = new Set<() => void>();

/** The chosen account's id, or null for the person's own. */
export function readAccountId(): string | null {
  return current;
}

/** Acts in `accountId` from now on (null: the person's own account). */
export function storeAccountId(accountId: string | null): void {
  const next = accountId === '' ? null : accountId;
  write(sessionStorage, TAB_KEY, next);
  write(localStorage, LAST_KEY, next);
  if (next === current) return;
  current = next;
  for (const listener of [...listeners]) listener();
}

/** Back to the person's own account (on sign-in and sign-out, or when the chosen one is gone). */
export function forgetAccountId(): void {
  storeAccountId(null);
}

/** For useSyncExternalStore. */
export function subscribeToAccountId(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
