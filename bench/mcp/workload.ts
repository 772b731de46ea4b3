/**
 * The seeded workload both servers get: the same entities, observations and
 * relations, sent in the same batches, and the same sequence of measured calls.
 */

export interface MemoryEntity {
  name: string;
  entityType: string;
  observations: string[];
}

export interface MemoryRelation {
  from: string;
  to: string;
  relationType: string;
}

export interface Workload {
  size: number;
  entities: MemoryEntity[];
  relations: MemoryRelation[];
  /** Terms each found in the observations of exactly `SEARCH_HITS` entities (fewer below 10 entities). */
  searchTerms: string[];
}

export const ENTITY_TYPES = [
  'person',
  'project',
  'concept',
  'place',
  'organization',
  'event',
  'tool',
  'document',
];
export const RELATION_TYPES = ['knows', 'depends_on', 'part_of', 'mentions', 'works_on', 'uses'];
export const RELATIONS_PER_ENTITY = 2;
export const SEARCH_HITS = 10;
export const BATCH = 500;

// Plain words only: no digits, so no observation contains an entity name or a marker.
const WORDS = `alpha bravo delta harbor meadow summit canyon river garden lantern copper velvet
  orbit signal marble ember glacier willow falcon granite prairie beacon cobalt thistle
  quartz meridian saffron tundra juniper mosaic cascade horizon kestrel lagoon`
  .split(/\s+/)
  .filter(Boolean);

/** mulberry32: a small, fast, seedable PRNG, so every run sends the same data. */
export function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)]!;

export const entityName = (index: number) => `entity-${String(index).padStart(6, '0')}`;

/** A marker found in exactly one observation of each entity of its group. */
const marker = (group: number) => `mk${String(group).padStart(6, '0')}z`;

function sentence(random: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(pick(random, WORDS));
  return out.join(' ');
}

export function buildWorkload(size: number, seed = 20_240_601): Workload {
  const random = rng(seed + size);
  const groups = Math.max(1, Math.floor(size / SEARCH_HITS));
  const entities: MemoryEntity[] = [];
  for (let i = 0; i < size; i++) {
    const name = entityName(i);
    entities.push({
      name,
      entityType: ENTITY_TYPES[i % ENTITY_TYPES.length]!,
      observations: [
        `Seeded note on ${sentence(random, 6)}`,
        `Linked to the ${sentence(random, 3)} workstream, tag ${marker(i % groups)}`,
      ],
    });
  }

  const relations: MemoryRelation[] = [];
  const seen = new Set<string>();
  const wanted = Math.min(size * RELATIONS_PER_ENTITY, size * (size - 1));
  while (relations.length < wanted) {
    const from = Math.floor(random() * size);
    const to = Math.floor(random() * size);
    if (from === to) continue;
    const relationType = pick(random, RELATION_TYPES);
    const key = `${from}|${to}|${relationType}`;
    if (seen.has(key)) continue;
    seen.add(key);
    relations.push({ from: entityName(from), to: entityName(to), relationType });
  }

  const searchTerms: string[] = [];
  for (let group = 0; group < groups; group++) searchTerms.push(marker(group));
  return { size, entities, relations, searchTerms };
}

export function batches<T>(items: T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size)
    out.push(items.slice(start, start + size));
  return out;
}
