import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.js';
import type { Db, DatabaseHandle } from '../db/connection.js';
import type { HttpContext } from '../http/context.js';
import type { RevocableRef } from '../lib/auth-context.js';
import type { ChangeEvent } from '../lib/change-event.js';
import type { CredentialCache } from '../lib/credential-cache.js';

/** A credential or membership that changed: every node forgets it and ends what it opened. */
export type CredentialChange = RevocableRef;

/**
 * What the runtime hands every feature's `create`: the database (which stays
 * inside the services built from it), the clock, the settings, and the
 * runtime's own plumbing (publishing changes, telling nodes of credential
 * changes, background jobs' errors and stops).
 */
export interface FeatureContext {
  config: Config;
  db: Db;
  /** The database as opened, for what is more than queries (the backup's snapshot). */
  database: DatabaseHandle;
  now: () => Date;
  /** Hands committed graph changes to realtime and MCP listeners (and notes them for the planner's statistics). */
  publish: (events: ChangeEvent[]) => void;
  /** Calls `listener` after each change this node publishes (work that follows the change log wakes on it). */
  onPublished: (listener: () => void) => void;
  /** Tells every node that these credentials were revoked or their expiry moved. */
  credentialsChanged: (changes: CredentialChange[]) => void;
  /** Session and key rows verified recently (forgotten on every credential change). */
  verified: CredentialCache;
  /** Notes rows changed outside the write path (a purge), for the planner's statistics. */
  noteChanges: (rows: number) => void;
  /**
   * When this node last began serving a request or an MCP message over stdio
   * (`performance.now()`): background work that rests to leave the database
   * to requests skips its rests while none come.
   */
  lastRequestAt: () => number;
  /** Errors of background work, logged with what failed. */
  onError: (error: unknown, message: string) => void;
  /**
   * What background work skipped and went on without (a row it could not
   * handle): a warning line with the fields given, which never hold user text.
   */
  onWarn: (fields: Record<string, unknown>, message: string) => void;
  /** Runs when the runtime closes, in the reverse order of registration. */
  onClose: (stop: () => void | Promise<void>) => void;
}

/** The options of a feature's routes: its own services and the HTTP hooks. */
export interface RouteOptions<Services> {
  services: Services;
  http: HttpContext;
}

/**
 * One feature: `create` builds its services from the context and the services
 * of the features it needs (listed before it in runtime.ts); `routes`, when it
 * has any, registers its HTTP routes over those services. Adapters only ever
 * see services: `db` stays inside `create`.
 */
export interface Feature<Name extends string, Services, Needs, Tuning = never> {
  name: Name;
  create(context: FeatureContext, needs: Needs, tuning?: Tuning): Services | Promise<Services>;
  routes?: FastifyPluginAsync<RouteOptions<Services>>;
}

export function defineFeature<Name extends string, Services, Needs = object, Tuning = never>(
  feature: Feature<Name, Services, Needs, Tuning>,
): Feature<Name, Services, Needs, Tuning> {
  return feature;
}

type Bindable<Deps> = Record<string, (deps: Deps, ...args: never[]) => unknown>;
type Bound<Deps, Fns extends Bindable<Deps>> = {
  [K in keyof Fns]: Fns[K] extends (deps: Deps, ...args: infer A) => infer R
    ? (...args: A) => R
    : never;
};

/**
 * A service object from functions that take their dependencies first: each
 * method is the function with `deps` already given, so whoever holds the
 * service calls it without ever seeing `deps` (and the `db` inside).
 */
export function bindService<Deps, Fns extends Bindable<Deps>>(
  deps: Deps,
  functions: Fns,
): Bound<Deps, Fns> {
  const bound: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(functions)) {
    bound[name] = (...args: never[]) => fn(deps, ...args);
  }
  return bound as Bound<Deps, Fns>;
}
