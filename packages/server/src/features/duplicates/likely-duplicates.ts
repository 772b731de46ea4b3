import type { Db } from '../../db/connection.js';
import { blockingKeys } from './blocking.js';
import { keyHash } from './duplicate-finder.js';
import * as repo from './duplicates.repository.js';
import { analyseName } from './names.js';
import { PROPOSE_AT, scorePair } from './scoring.js';

/** Created entities looked at per call: a bulk load's first ones; the finder sees every one later. */
export const LIKELY_CHECKED_MAX = 100;
/** Likely duplicates given per created entity, best first. */
const PER_ENTITY = 3;

export interface LikelyDuplicate {
  /** The entity just created. */
  of: { id: string; name: string };
  /** An entity it is probably the same as. */
  other: { id: string; name: string; type: string };
  score: number;
}

/**
 * The likely duplicates of entities just created, for the create's answer:
 * one read of the names the background finder keeps (`duplicate_names`, by
 * the new names' blocking keys), scored by names and types alone (the graph
 * signals need the finder's step). An entity the finder has not seen yet (made
 * a moment ago) is not found; nothing is written.
 */
export async function likelyDuplicatesOf(
  db: Db,
  spaceId: string,
  created: { id: string; name: string; type: string }[],
): Promise<LikelyDuplicate[]> {
  const checked = created.slice(0, LIKELY_CHECKED_MAX);
  if (checked.length === 0) return [];
  const forms = new Map(checked.map((entity) => [entity.id, analyseName(entity.name)]));
  const probes = checked.map((entity) => ({
    id: entity.id,
    probe: blockingKeys(forms.get(entity.id)!).probe.map((key) => keyHash(spaceId, key)),
  }));
  const candidates = await repo.namesSharingKeys(db, spaceId, probes, 20);
  const byId = new Map(checked.map((entity) => [entity.id, entity]));
  const found = new Map<string, LikelyDuplicate[]>();
  for (const row of candidates) {
    const entity = byId.get(row.source)!;
    if (byId.has(row.other)) continue;
    const scored = scorePair({
      namesA: [forms.get(entity.id)!],
      namesB: [analyseName(row.name)],
      typeA: entity.type,
      typeB: row.type,
      sharedNeighbours: 0,
      sharedObservations: 0,
    });
    if (!scored || scored.score < PROPOSE_AT) continue;
    const list = found.get(entity.id) ?? [];
    if (list.some((item) => item.other.id === row.other)) continue;
    list.push({
      of: { id: entity.id, name: entity.name },
      other: { id: row.other, name: row.name, type: row.type },
      score: scored.score,
    });
    found.set(entity.id, list);
  }
  return checked.flatMap((entity) =>
    (found.get(entity.id) ?? []).sort((a, b) => b.score - a.score).slice(0, PER_ENTITY),
  );
}
