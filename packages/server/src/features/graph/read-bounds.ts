import type { Db } from '../../db/connection.js';
import type * as entityRepo from './entities.repository.js';
import * as observationRepo from './observations.repository.js';

/**
 * The most one read answers (docs/security.md): entities or relations per
 * answer, observations per answer (ten per entity row on average), and bytes
 * of names, types, metadata and observation text. Past them an answer is cut
 * at a whole entity and says so.
 */
export interface ReadBounds {
  maxRows: number;
  maxBytes: number;
}

/** Observation rows one answer may hold: ten per entity row it may hold. */
export const observationRowsOf = (bounds: ReadBounds) => bounds.maxRows * 10;

/** What fitting an answer's bytes reads of an entity and of an observation. */
export type SizedEntity = Pick<
  entityRepo.EntityRow,
  'id' | 'name' | 'type' | 'metadata' | 'observations_count'
>;
export type SizedObservation = Pick<
  observationRepo.ObservationRow,
  'entity_id' | 'content' | 'metadata'
>;

/** Entities cut to what one answer may hold, each with the observations it keeps. */
export interface BoundedEntities<
  E extends SizedEntity = entityRepo.EntityRow,
  O extends SizedObservation = observationRepo.ObservationRow,
> {
  rows: E[];
  observations: Map<string, O[]>;
  /** True when fewer entities are kept than were given (a limit was reached). */
  cut: boolean;
  /** The entity whose observations were cut to fit (it alone passes a limit), if any. */
  observationsCutOf: E | undefined;
}

export const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');
const jsonBytes = (value: unknown) => (value ? byteLength(JSON.stringify(value)) : 0);

/**
 * Keeps whole entities, in order, while they and their observations fit the
 * bounds; reads no more observation rows than it keeps (the kept counts are
 * known from `observations_count` before reading). The first entity is always
 * kept, its observations cut when it alone is too big. The MCP reads apply the
 * same rule in SQL (`readAnswer`, decision 017).
 */
export async function boundEntities(
  db: Db,
  accountId: string,
  given: entityRepo.EntityRow[],
  bounds: ReadBounds,
): Promise<BoundedEntities> {
  let rowsLeft = observationRowsOf(bounds);
  const plan: ObservationPlan = [];
  for (const row of given.slice(0, bounds.maxRows)) {
    if (row.observations_count > rowsLeft && plan.length > 0) break;
    const take = Math.min(row.observations_count, rowsLeft);
    plan.push({ row, take });
    rowsLeft -= take;
  }
  const read = await observationRepo.takeObservations(
    db,
    accountId,
    plan.map(({ row, take }) => ({ id: row.id, take })),
  );
  return fitBytes(plan, read, given.length, bounds);
}

/** Entities in answer order, each with the number of its observations read. */
type ObservationPlan<E extends SizedEntity = entityRepo.EntityRow> = {
  row: E;
  take: number;
}[];

/**
 * Keeps the planned entities, in order, while they and the observations read
 * for them fit the answer's bytes; the first is always kept, its observations
 * cut when it alone is too big.
 */
export function fitBytes<E extends SizedEntity, O extends SizedObservation>(
  plan: ObservationPlan<E>,
  read: O[],
  givenCount: number,
  bounds: ReadBounds,
): BoundedEntities<E, O> {
  const byEntity = new Map<string, O[]>();
  for (const observation of read) {
    const list = byEntity.get(observation.entity_id);
    if (list) list.push(observation);
    else byEntity.set(observation.entity_id, [observation]);
  }

  const rows: E[] = [];
  const observations = new Map<string, O[]>();
  let observationsCutOf: E | undefined;
  let bytesLeft = bounds.maxBytes;
  for (const { row, take } of plan) {
    const own = byteLength(row.name) + byteLength(row.type) + jsonBytes(row.metadata);
    const list = byEntity.get(row.id) ?? [];
    const sizes = list.map((o) => byteLength(o.content) + jsonBytes(o.metadata));
    const total = own + sizes.reduce((sum, size) => sum + size, 0);
    if (total > bytesLeft && rows.length > 0) break;
    let kept = list.length;
    if (total > bytesLeft) {
      // The first entity alone is too big: keep the observations that fit.
      let used = own;
      kept = 0;
      while (kept < sizes.length && used + sizes[kept]! <= bytesLeft) used += sizes[kept++]!;
    }
    if (kept < row.observations_count || take < row.observations_count) observationsCutOf = row;
    rows.push(row);
    observations.set(row.id, list.slice(0, kept));
    bytesLeft -= total;
  }
  return { rows, observations, cut: rows.length < givenCount, observationsCutOf };
}
