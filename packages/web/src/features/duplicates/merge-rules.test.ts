import type { DuplicateCandidate, DuplicateEntity, MergeResult } from '@engram/shared';
import { describe, expect, it } from 'vitest';
import { duplicateScoreLabel } from '@/lib/api/duplicates';
import { mergedNotice, mergeNotes, mergePreview, sidesOf } from './merge-rules';

const side = (
  name: string,
  observationsCount: number,
  relationsCount: number,
  type = 'person',
): DuplicateEntity => ({ id: `id-${name}`, name, type, observationsCount, relationsCount });

const ADA = side('Ada Lovelace', 4, 1);
const SHORT = side('A. Lovelace', 3, 2);

describe('sidesOf', () => {
  const pair = (a: DuplicateEntity, b: DuplicateEntity): DuplicateCandidate => ({
    id: 'p',
    score: 0.9,
    reasons: [],
    entities: [a, b],
  });

  it('puts the entity holding more on the left, the server’s order when even', () => {
    expect(sidesOf(pair(side('a', 0, 0), side('b', 2, 1))).map((e) => e.name)).toEqual(['b', 'a']);
    expect(sidesOf(pair(side('a', 1, 2), side('b', 2, 1))).map((e) => e.name)).toEqual(['a', 'b']);
  });
});

describe('mergePreview', () => {
  it('says what moves to the target and what becomes of the source', () => {
    expect(mergePreview(SHORT, ADA)).toBe(
      '3 observations and 2 relations move to Ada Lovelace. “A. Lovelace” is removed and becomes an alias.',
    );
    expect(mergePreview(side('A', 1, 0), ADA)).toBe(
      '1 observation moves to Ada Lovelace. “A” is removed and becomes an alias.',
    );
    expect(mergePreview(side('A', 0, 1), ADA)).toMatch(/^1 relation moves to Ada Lovelace\./);
    expect(mergePreview(side('A', 0, 0), ADA)).toBe(
      '“A” has nothing to move. “A” is removed and becomes an alias.',
    );
  });

  it('notes repeats, the type kept when the two differ, and Undo', () => {
    expect(mergeNotes(SHORT, ADA)).toHaveLength(2);
    const notes = mergeNotes(side('Ada', 1, 0, 'organization'), ADA);
    expect(notes).toContain('Ada Lovelace keeps its type, person.');
    expect(notes.at(-1)).toBe('You can undo the merge afterwards.');
  });
});

describe('mergedNotice', () => {
  const result = (observations: number, relations: number, duplicatesDropped = 0): MergeResult => ({
    entity: {
      id: ADA.id,
      name: 'Ada Lovelace',
      type: 'person',
      aliases: ['A. Lovelace'],
      metadata: {},
      observations: [],
      observationsCount: 7,
      createdAt: '2027-01-05T10:00:00.000Z',
      updatedAt: '2027-01-05T10:00:00.000Z',
    },
    merged: { entities: 1, observations, relations, duplicatesDropped },
    callSeq: 12,
  });

  it('says what the merge moved, in the server’s counts', () => {
    expect(mergedNotice(result(3, 2), SHORT)).toEqual({
      message: 'Merged “A. Lovelace” into Ada Lovelace',
      description: '3 observations and 2 relations moved.',
    });
    expect(mergedNotice(result(0, 0, 2), SHORT).description).toBe(
      'Nothing else moved; 2 repeats kept once.',
    );
  });
});

describe('duplicateScoreLabel', () => {
  it('shows a percentage, 100% only for a sure thing', () => {
    expect(duplicateScoreLabel(0.97)).toBe('97%');
    expect(duplicateScoreLabel(0.996)).toBe('99%');
    expect(duplicateScoreLabel(1)).toBe('100%');
    expect(duplicateScoreLabel(0.5)).toBe('50%');
  });
});
