import type { Db } from '../../db/connection.js';
import { AppError, tooManyRequests } from '../../lib/errors.js';
import { hashSecret } from '../../lib/secrets.js';
import * as repo from './auth.repository.js';

/** What a throttle needs: the database and the clock (the auth service's deps carry both). */
export interface ThrottleDeps {
  db: Db;
  now: () => Date;
}

/**
 * Failed-attempt throttles kept in the database, so they hold across nodes
 * and restarts (docs/security.md): each scope allows `maxFailures` within
 * `windowMinutes`, then locks its subject for `lockMinutes`; with `slowAfter`,
 * each failure past that many waits a little longer before it is answered.
 */
export interface ThrottleRule {
  scope: repo.ThrottleScope;
  maxFailures: number;
  windowMinutes: number;
  lockMinutes: number;
  slowAfter?: number;
  /** The 429 message; `minutes` is how long until the lock ends. */
  message: (minutes: number) => string;
}

const MINUTE_MS = 60_000;
/** The longest a failing attempt is held before it is answered. */
const MAX_DELAY_MS = 2_000;

/** Subjects are hashed: the table never holds an email address or client address in clear. */
export function throttleSubject(value: string): string {
  return hashSecret(value.trim().toLowerCase());
}

function lockedError(rule: ThrottleRule, until: Date, now: Date): AppError {
  const seconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  return tooManyRequests(rule.message(Math.ceil(seconds / 60)), seconds);
}

/** Throws 429 while the subject is locked; otherwise holds a repeated failer back a little. */
export async function assertNotLocked(
  deps: ThrottleDeps,
  rule: ThrottleRule,
  subject: string,
): Promise<void> {
  const row = await repo.findThrottleLock(deps.db, rule.scope, subject);
  if (!row) return;
  const now = deps.now();
  if (row.locked_until && row.locked_until > now) throw lockedError(rule, row.locked_until, now);
  const inWindow = row.window_start.getTime() >= now.getTime() - rule.windowMinutes * MINUTE_MS;
  if (rule.slowAfter !== undefined && inWindow && row.failures > rule.slowAfter) {
    const delay = Math.min(MAX_DELAY_MS, 100 * 2 ** (row.failures - rule.slowAfter - 1));
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** Counts a failure; the one that reaches the limit locks the subject. */
export async function recordFailure(
  deps: ThrottleDeps,
  rule: ThrottleRule,
  subject: string,
): Promise<void> {
  const now = deps.now();
  const windowStart = new Date(now.getTime() - rule.windowMinutes * MINUTE_MS);
  const failures = await repo.addThrottleFailure(deps.db, rule.scope, subject, now, windowStart);
  if (failures >= rule.maxFailures) {
    const until = new Date(now.getTime() + rule.lockMinutes * MINUTE_MS);
    await repo.lockThrottle(deps.db, rule.scope, subject, now, until);
  }
}

export async function clearFailures(
  deps: ThrottleDeps,
  rule: ThrottleRule,
  subject: string,
): Promise<void> {
  await repo.clearThrottle(deps.db, rule.scope, subject);
}

const minutes = (count: number) => `${count} minute${count === 1 ? '' : 's'}`;

/** The three throttles of the auth feature, from their configured limits. */
export function authThrottles(limits: {
  loginMaxFailures: number;
  loginLockMinutes: number;
  passwordAttempts: number;
  registerConflictsPerHour: number;
}): { login: ThrottleRule; password: ThrottleRule; register: ThrottleRule } {
  return {
    login: {
      scope: 'login',
      maxFailures: limits.loginMaxFailures,
      windowMinutes: limits.loginLockMinutes,
      lockMinutes: limits.loginLockMinutes,
      slowAfter: 3,
      message: (m) => `Too many failed sign-ins for this email. Try again in ${minutes(m)}.`,
    },
    password: {
      scope: 'password',
      maxFailures: limits.passwordAttempts,
      windowMinutes: 15,
      lockMinutes: 15,
      message: (m) => `Too many wrong current passwords. Try again in ${minutes(m)}.`,
    },
    register: {
      scope: 'register',
      maxFailures: limits.registerConflictsPerHour,
      windowMinutes: 60,
      lockMinutes: 60,
      message: (m) => `Too many sign-up attempts from this address. Try again in ${minutes(m)}.`,
    },
  };
}
