import { createHash } from 'node:crypto';
import type { Db } from '../../db/connection.js';
import { blockingKeys } from './blocking.js';
import * as repo from './duplicates.repository.js';
import { isRowFault } from '../../follower/row-faults.js';
import { ALIASES_COMPARED_MAX, analyseName, compareNameLists, type NameForm } from './names.js';
import { nameKindOf, PROPOSE_AT, scorePair } from './scoring.js';

/**
 * One step of the duplicate finder (duplicate-finder.ts): a chunk of a
 * space's entities compared again (docs/consolidation.md, "Background
 * upkeep").
 */

/** Name matches below this are not worth reading the graph for: nothing lifts them to PROPOSE_AT. */
const WORTH_SIGNALS = 0.25;

/**
 * A blocking key as the table stores it: a 64-bit hash of the space and the
 * key, so that each key of each space is one entry of the index (a
 * collision only adds a candidate, which the comparison then drops).
 */
export function keyHash(spaceId: string, key: string): string {
  const digest = createHash('sha1').update(`${spaceId}\u0000${key}`).digest();
  return digest.readBigInt64BE(0).toString();
}

/** An entity's names as compared: its name, then its aliases (as many as an entity may have). */
export const formsOf = (entity: { name: string; aliases: string[] }): NameForm[] =>
  [entity.name, ...entity.aliases.slice(0, ALIASES_COMPARED_MAX)].map(analyseName);

/** An entity being compared: its names as read once. */
interface Side {
  id: string;
  type: string;
  names: NameForm[];
}

/**
 * Compares the entities `ids` of a space again: their names and blocking
 * keys are stored anew, dismissals their renames undo are forgotten, their
 * candidates are found and scored, and their pairs become those that
 * score at least PROPOSE_AT. Entities gone take their pairs with them.
 * `renamedAt`: for a scan, the seq it started at (the names read are at
 * least that new); for the log, each entity's names and seqs from its events.
 *
 * An entity whose comparison failed before is skipped, unless an event here
 * renamed it since. One that fails now (its row, or a candidate's, cannot be
 * read: `isRowFault`) is left out and returned with its error, for the
 * finder to record; the others are compared all the same.
 */
export async function compareEntities(
  db: Db,
  space: string,
  ids: string[],
  renamedAt: number,
  eventNames: Map<string, { name: string; seq: number }[]>,
  perEntity: number,
): Promise<Map<string, unknown>> {
  const failed = new Map<string, unknown>();
  if (ids.length === 0) return failed;
  const rows = await repo.entitiesOf(db, space, ids);
  const present = new Set(rows.map((entity) => entity.id));
  await repo.forgetEntities(
    db,
    space,
    ids.filter((id) => !present.has(id)),
  );
  const retried: string[] = [];
  const entities = rows.filter(({ id, failed_seq: failedAt }) => {
    if (failedAt === null) return true;
    const renamed = eventNames.get(id)?.some(({ seq }) => seq > failedAt) ?? false;
    if (renamed) retried.push(id);
    return renamed;
  });
  if (entities.length === 0) return failed;
  const compared = entities.map((entity) => entity.id);
  const attempt = <T>(id: string, work: () => T): T | undefined => {
    try {
      return work();
    } catch (error) {
      if (!isRowFault(error)) throw error;
      failed.set(id, error);
      return undefined;
    }
  };

  const sides = new Map<string, Side>();
  const nameRows: repo.NameRow[] = [];
  const probes: repo.Probe[] = [];
  for (const entity of entities) {
    attempt(entity.id, () => {
      const forms = formsOf(entity);
      // An entity is stored and looks up under the keys of its name and of each alias.
      const keys = forms.map(blockingKeys);
      const hashed = (list: string[]) => [...new Set(list)].map((key) => keyHash(space, key));
      const stored = hashed(keys.flatMap((key) => key.stored));
      sides.set(entity.id, { id: entity.id, type: entity.type, names: forms });
      nameRows.push({ entity_id: entity.id, name: entity.name, keys: stored });
      probes.push({ id: entity.id, probe: hashed(keys.flatMap((key) => key.probe)) });
    });
  }
  await repo.replaceNames(db, space, compared, nameRows);
  const renames = entities.flatMap((entity) => {
    const seen = eventNames.get(entity.id);
    return seen
      ? seen.map(({ name, seq }) => ({ id: entity.id, name, seq }))
      : renamedAt > 0
        ? [{ id: entity.id, name: entity.name, seq: renamedAt }]
        : [];
  });
  await repo.forgetRenamedDismissals(db, space, renames);

  const candidates = await repo.candidatesOf(db, space, probes, perEntity);
  // Each pair once, `a` < `b`, whichever side found it.
  const pairs = new Map<string, { a: Side; b: Side; source: string; part?: string }>();
  const others = new Map<string, Side | undefined>();
  for (const row of candidates) {
    const source = sides.get(row.source)!;
    let other = sides.get(row.other) ?? others.get(row.other);
    if (!other && !others.has(row.other)) {
      // A candidate that cannot be read is recorded too (it is this space's).
      const names = attempt(row.other, () => formsOf(row));
      other = names && { id: row.other, type: row.type, names };
      others.set(row.other, other);
    }
    if (!other || failed.has(source.id)) continue;
    const [a, b] = source.id < other.id ? [source, other] : [other, source];
    const key = `${a.id} ${b.id}`;
    if (pairs.has(key)) continue;
    const match = attempt(source.id, () =>
      compareNameLists(a.names, b.names, nameKindOf(a.type, b.type)),
    );
    if (!match || match.score < WORTH_SIGNALS || (match.cap ?? 1) < PROPOSE_AT) continue;
    pairs.set(key, { a, b, source: source.id, ...(match.part ? { part: match.part } : {}) });
  }

  const worth = [...pairs.values()];
  // The words one name shares with longer names, by the hash of their `p:` key.
  const parts = new Map<string, string>();
  for (const { part } of worth) if (part) parts.set(part, keyHash(space, `p:${part}`));
  const [signals, holders] = await Promise.all([
    repo.pairSignals(
      db,
      space,
      worth.map((pair) => ({ a: pair.a.id, b: pair.b.id })),
    ),
    repo.partHolders(db, [...new Set(parts.values())]),
  ]);
  const signalOf = new Map(signals.map((row) => [`${row.a} ${row.b}`, row]));
  const kept: repo.PairRow[] = [];
  for (const [key, { a, b, source }] of pairs) {
    const signal = signalOf.get(key);
    const scored = attempt(source, () =>
      scorePair({
        namesA: a.names,
        namesB: b.names,
        typeA: a.type,
        typeB: b.type,
        sharedNeighbours: signal?.neighbours ?? 0,
        sharedObservations: signal?.observations ?? 0,
        partHolders: (word) => holders.get(parts.get(word) ?? '') ?? 1,
      }),
    );
    if (scored && scored.score >= PROPOSE_AT && !failed.has(a.id) && !failed.has(b.id)) {
      kept.push({ a: a.id, b: b.id, score: scored.score, reasons: scored.reasons });
    }
  }
  await repo.replacePairs(db, space, compared, kept);
  await repo.forgetFailures(
    db,
    space,
    retried.filter((id) => !failed.has(id)),
  );
  return failed;
}
