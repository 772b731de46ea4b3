import type { Db } from '../../db/connection.js';
import { blockingKeys } from './blocking.js';
import { formsOf, keyHash } from './duplicate-finder.js';
import * as repo from './duplicates.repository.js';
import { analyseName } from './names.js';
import { PROPOSE_AT, scorePair } from './scoring.js';

/** Names looked at per create: a bulk load's first ones; the finder sees every one later. */
export const LIKELY_CHECKED_MAX = 100;
/** Likely duplicates given per created entity, best first. */
const PER_ENTITY = 3;

export interface LikelyDuplicate {
  /** The name about to be created, as given. */
  of: string;
  /** An existing entity it is probably the same as. */
  other: { id: string; name: string; type: string };
  score: number;
}

/**
 * The likely duplicates of entities about to be created, for the create's
 * answer: one read of the names the background finder keeps
 * (`duplicate_names`, by the new names' blocking keys), scored by names and
 * types alone (the graph signals need the finder's step). It reads nothing a
 * create writes, so the graph sends it beside the create (graph.service.ts);
 * nothing is written.
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
    probe: blockingKeys(form).probe.map((key) => keyHash(spaceId, key)),
  }));
  const candidates = await repo.namesSharingKeys(db, spaceId, probes, 20);
  const found = new Map<number, LikelyDuplicate[]>();
  for (const row of candidates) {
    const entity = checked[row.ord]!;
    const scored = scorePair({
      namesA: [forms[row.ord]!],
      namesB: formsOf(row),
      typeA: entity.type,
      typeB: row.type,
      sharedNeighbours: 0,
      sharedObservations: 0,
    });
    if (!scored || scored.score < PROPOSE_AT) continue;
    const list = found.get(row.ord) ?? [];
    if (list.some((item) => item.other.id === row.other)) continue;
    list.push({
      of: entity.name,
      other: { id: row.other, name: row.name, type: row.type },
      score: scored.score,
    });
    found.set(row.ord, list);
  }
  return checked.flatMap((_, ord) =>
    (found.get(ord) ?? []).sort((a, b) => b.score - a.score).slice(0, PER_ENTITY),
  );
}
