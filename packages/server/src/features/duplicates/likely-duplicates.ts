import type { Db } from '../../db/connection.js';
import { blockingKeys } from './blocking.js';
import { formsOf, keyHash } from './finder-compare.js';
import * as repo from './duplicates.repository.js';
import { nameKey } from './name-key.js';
import { analyseName, type NameForm } from './names.js';
import { PROPOSE_AT, scorePair } from './scoring.js';

/** Names looked at per create: a bulk load's first ones; the finder sees every one later. */
export const LIKELY_CHECKED_MAX = 100;
/** Likely duplicates given per created entity, best first (besides its near twins, all named). */
const PER_ENTITY = 3;

export interface LikelyDuplicate {
  /** The name about to be created, as given. */
  of: string;
  /** An existing entity it is probably the same as. */
  other: { id: string; name: string; type: string };
  score: number;
}

/** A pair's score by names and types alone (the graph signals need the finder's step). */
const scoreOf = (names: NameForm[], type: string, other: NameForm[], otherType: string) =>
  scorePair({
    namesA: names,
    namesB: other,
    typeA: type,
    typeB: otherType,
    sharedNeighbours: 0,
    sharedObservations: 0,
  })?.score;

/**
 * The likely duplicates of entities about to be created, for the create's
 * answer, in one statement (`likelyNames`): the names the background finder
 * keeps (`duplicate_names`, by the new names' blocking keys), scored by names
 * and types, those at PROPOSE_AT or more; and every entity whose name or an
 * alias equals a new name but for case, spacing and punctuation (migration
 * 034's key), read from the entities themselves, so one created a moment
 * before is named whatever the finder's backlog — named even when another
 * type scores it lower. An entity holding the very name is left out: the
 * create skips or refuses that name. It reads nothing a create writes, so
 * the graph sends it beside the create (graph.service.ts); nothing is
 * written. A stored row that cannot be scored is passed over.
 */
export async function likelyDuplicatesOf(
  db: Db,
  spaceId: string,
  given: { name: string; type: string }[],
): Promise<LikelyDuplicate[]> {
  const byName = new Map(given.map((entity) => [entity.name, entity]));
  const checked = [...byName.values()].slice(0, LIKELY_CHECKED_MAX);
  if (checked.length === 0) return [];
  const forms = checked.map((entity) => analyseName(entity.name));
  const probes = forms.map((form, ord) => ({
    ord,
    name: checked[ord]!.name,
    probe: blockingKeys(form).probe.map((key) => keyHash(spaceId, key)),
  }));
  const candidates = await repo.likelyNames(db, spaceId, probes, 20);
  const found = new Map<number, Map<string, LikelyDuplicate & { same: boolean }>>();
  for (const row of candidates) {
    const entity = checked[row.ord]!;
    if (row.name === entity.name || row.aliases.includes(entity.name)) continue;
    let score: number | undefined;
    try {
      score = scoreOf([forms[row.ord]!], entity.type, formsOf(row), row.type);
    } catch {
      continue;
    }
    // A key is a name's first 500 characters: names that differ past them have no match.
    if (score === undefined || (!row.same && score < PROPOSE_AT)) continue;
    const list = found.get(row.ord) ?? new Map<string, LikelyDuplicate & { same: boolean }>();
    found.set(row.ord, list);
    const seen = list.get(row.other);
    list.set(row.other, {
      of: entity.name,
      other: { id: row.other, name: row.name, type: row.type },
      score,
      same: row.same || (seen?.same ?? false),
    });
  }
  return checked.flatMap((_, ord) => {
    const list = [...(found.get(ord)?.values() ?? [])].sort((a, b) => b.score - a.score);
    const same = list.filter((item) => item.same).length;
    let others = Math.max(0, PER_ENTITY - same);
    return list.filter((item) => item.same || others-- > 0).map(({ same: _, ...item }) => item);
  });
}

/**
 * Entities of one create whose names are equal but for case, spacing and
 * punctuation: each later one is named a likely duplicate of the first.
 */
export function twinsOf(created: { id: string; name: string; type: string }[]): {
  of: { id: string; name: string };
  other: { id: string; name: string; type: string };
  score: number;
}[] {
  const first = new Map<string, { id: string; name: string; type: string }>();
  return created.flatMap((entity) => {
    const key = nameKey(entity.name);
    const twin = key ? first.get(key) : undefined;
    if (!twin) {
      if (key) first.set(key, entity);
      return [];
    }
    const score = scoreOf(
      [analyseName(entity.name)],
      entity.type,
      [analyseName(twin.name)],
      twin.type,
    );
    return score === undefined
      ? []
      : [{ of: { id: entity.id, name: entity.name }, other: twin, score }];
  });
}
