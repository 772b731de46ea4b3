import { compareNameLists, type NameForm, type NameKind } from './names.js';

/**
 * A pair's score from its signals (docs/consolidation.md, "Scoring"): the
 * names give the base, then each other signal takes away part of what is
 * left of the doubt — the same type a little, shared neighbours and
 * near-identical observations more — and different types halve it. Names that
 * disagree (other words, numbers or qualifiers) cap the score whatever else
 * agrees. Pure: the finder gathers the signals, this weighs them.
 */

/** The least score a pair is proposed with (kept in the candidates' table). */
export const PROPOSE_AT = 0.5;

/** Types written differently that name one kind of thing. */
const TYPE_GROUPS: [string, string[]][] = [
  [
    'person',
    [
      'person',
      'people',
      'human',
      'individual',
      'user',
      'contact',
      'employee',
      'colleague',
      'friend',
      'author',
      'developer',
      'engineer',
      'researcher',
      'scientist',
      'student',
      'teacher',
      'manager',
      'customer',
    ],
  ],
  [
    'organization',
    [
      'organization',
      'organisation',
      'org',
      'company',
      'business',
      'corporation',
      'firm',
      'enterprise',
      'startup',
      'institution',
      'agency',
      'vendor',
      'employer',
      'nonprofit',
    ],
  ],
  [
    'place',
    [
      'place',
      'location',
      'city',
      'town',
      'village',
      'country',
      'region',
      'area',
      'site',
      'venue',
      'landmark',
      'address',
    ],
  ],
  [
    'technology',
    [
      'technology',
      'tech',
      'tool',
      'software',
      'library',
      'framework',
      'language',
      'programminglanguage',
      'database',
      'platform',
    ],
  ],
];
const GROUP_OF = new Map<string, string>();
for (const [group, members] of TYPE_GROUPS)
  for (const member of members) GROUP_OF.set(member, group);

/** A type as compared: lower case, letters and digits only, singular, its group's name if it has one. */
export function canonicalType(type: string): string {
  const plain = type.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  if (GROUP_OF.has(plain)) return GROUP_OF.get(plain)!;
  const singular = plain.endsWith('ies')
    ? `${plain.slice(0, -3)}y`
    : plain.endsWith('s') && !plain.endsWith('ss')
      ? plain.slice(0, -1)
      : plain;
  return GROUP_OF.get(singular) ?? singular;
}

/** Which name rules apply to a pair of types. */
export function nameKindOf(typeA: string, typeB: string): NameKind {
  const kinds = [canonicalType(typeA), canonicalType(typeB)];
  if (kinds.includes('person')) return 'person';
  if (kinds.includes('organization')) return 'organization';
  return 'other';
}

export interface PairSignals {
  namesA: NameForm[];
  namesB: NameForm[];
  typeA: string;
  typeB: string;
  /** Entities related to both. */
  sharedNeighbours: number;
  /** Observations of one equal to one of the other's, but for case, spacing and punctuation. */
  sharedObservations: number;
  /**
   * When one name is a single word of the other ("Ada" in "Ada Lovelace"):
   * how many entities' longer names hold that word, so that "Ada" weighs
   * less when three people are called Ada something.
   */
  partHolders?: (word: string) => number;
}

export interface PairScore {
  score: number;
  reasons: string[];
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** The pair's score and reasons; undefined when nothing in the names suggests one thing. */
export function scorePair(signals: PairSignals): PairScore | undefined {
  const match = compareNameLists(
    signals.namesA,
    signals.namesB,
    nameKindOf(signals.typeA, signals.typeB),
  );
  if (!match) return undefined;
  const reasons = [match.reason];
  let doubt = 1 - match.score;
  if (match.part && signals.partHolders) {
    const holders = signals.partHolders(match.part);
    if (holders > 1) {
      doubt = Math.min(1, doubt + 0.04 * Math.min(holders - 1, 4));
      reasons.push(`${holders} entities have "${match.part}" in their name`);
    }
  }
  const sameType = canonicalType(signals.typeA) === canonicalType(signals.typeB);
  if (sameType) {
    doubt *= 0.92;
    reasons.push('same type');
  }
  if (signals.sharedNeighbours > 0) {
    doubt *= 1 - Math.min(0.5, 0.18 * signals.sharedNeighbours);
    reasons.push(plural(signals.sharedNeighbours, 'shared neighbour', 'shared neighbours'));
  }
  if (signals.sharedObservations > 0) {
    doubt *= 1 - Math.min(0.6, 0.3 * signals.sharedObservations);
    reasons.push(plural(signals.sharedObservations, 'shared observation', 'shared observations'));
  }
  let score = 1 - doubt;
  if (!sameType) {
    score *= 0.45;
    reasons.push(`different types (${signals.typeA} and ${signals.typeB})`);
  }
  if (match.cap !== undefined) score = Math.min(score, match.cap);
  return { score: Math.round(Math.max(0, Math.min(1, score)) * 10_000) / 10_000, reasons };
}
