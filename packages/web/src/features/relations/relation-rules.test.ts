import { describe, expect, it } from 'vitest';
import {
  checkRelationForm,
  filterRelations,
  matchesRelationSearch,
  matchesRelationType,
  RELATION_TYPE_OPTIONS,
  relationTypeChoices,
  relationTypeOptions,
  type RelationFormValues,
} from './relation-rules';

describe('checkRelationForm', () => {
  it('reports each rule in the documented order', () => {
    const steps: [RelationFormValues, string, string][] = [
      [
        { fromEntityId: null, toEntityId: null, type: '' },
        'Source entity is required',
        'fromEntityId',
      ],
      [
        { fromEntityId: 'a', toEntityId: null, type: '' },
        'Target entity is required',
        'toEntityId',
      ],
      [{ fromEntityId: 'a', toEntityId: 'a', type: '' }, 'Relation type is required', 'type'],
      [{ fromEntityId: 'a', toEntityId: 'a', type: '   ' }, 'Relation type is required', 'type'],
      [
        { fromEntityId: 'a', toEntityId: 'a', type: 'uses' },
        'Source and target entities cannot be the same',
        'toEntityId',
      ],
    ];
    for (const [values, message, field] of steps) {
      expect(checkRelationForm(values)).toEqual({ ok: false, field, message });
    }
  });

  it('sends the type trimmed', () => {
    expect(checkRelationForm({ fromEntityId: 'a', toEntityId: 'b', type: ' part_of ' })).toEqual({
      ok: true,
      input: { fromEntityId: 'a', toEntityId: 'b', type: 'part_of' },
    });
  });

  it('offers the ten documented types', () => {
    expect(RELATION_TYPE_OPTIONS).toEqual([
      'relates_to',
      'depends_on',
      'part_of',
      'uses',
      'enables',
      'based_on',
      'implements',
      'extends',
      'contains',
      'influences',
    ]);
  });
});

describe('relationTypeChoices', () => {
  it("lists the account's types, then the ten it does not use, then the current type", () => {
    expect(relationTypeChoices(['mentors', 'uses'], 'taught', '')).toEqual([
      'mentors',
      'uses',
      ...RELATION_TYPE_OPTIONS.filter((type) => type !== 'uses'),
      'taught',
    ]);
  });

  it('keeps only the fixed choices that start with the search, in any case', () => {
    expect(relationTypeChoices(['part_time_of'], 'PARTNER_OF', 'PART')).toEqual([
      'part_time_of',
      'part_of',
      'PARTNER_OF',
    ]);
    expect(relationTypeChoices([], '', 'zz')).toEqual([]);
  });
});

const relation = (from: string, type: string, to: string) => ({
  fromEntity: { name: from },
  toEntity: { name: to },
  type,
});

describe('relation search and type filter', () => {
  const adaUsesEngram = relation('Ada Lovelace', 'uses', 'Engram');

  it('search matches either end’s name or the type, case-insensitively', () => {
    expect(matchesRelationSearch(adaUsesEngram, 'ADA')).toBe(true);
    expect(matchesRelationSearch(adaUsesEngram, 'gram')).toBe(true);
    expect(matchesRelationSearch(adaUsesEngram, 'Use')).toBe(true);
    expect(matchesRelationSearch(adaUsesEngram, '  ')).toBe(true);
    expect(matchesRelationSearch(adaUsesEngram, 'babbage')).toBe(false);
  });

  it('the type filter matches exactly', () => {
    expect(matchesRelationType(adaUsesEngram, 'uses')).toBe(true);
    expect(matchesRelationType(adaUsesEngram, 'Uses')).toBe(false);
    expect(matchesRelationType(adaUsesEngram, 'use')).toBe(false);
    expect(matchesRelationType(adaUsesEngram, null)).toBe(true);
  });

  it('filterRelations applies both', () => {
    const all = [
      adaUsesEngram,
      relation('Babbage', 'uses', 'Engine'),
      relation('Ada Lovelace', 'collaborated_with', 'Babbage'),
    ];
    expect(filterRelations(all, { query: 'babbage', type: null })).toHaveLength(2);
    expect(filterRelations(all, { query: 'babbage', type: 'uses' })).toEqual([all[1]]);
    expect(filterRelations(all, { query: '', type: null })).toEqual(all);
  });
});

describe('relationTypeOptions (the type filter)', () => {
  it('sorts by count descending and labels with the first letter capitalised, - and _ as spaces', () => {
    expect(
      relationTypeOptions([
        { type: 'part-of', count: 1 },
        { type: 'depends_on', count: 5 },
        { type: 'uses', count: 3 },
        { type: 'based_on', count: 3 },
      ]),
    ).toEqual([
      { type: 'depends_on', count: 5, label: 'Depends on (5)' },
      { type: 'based_on', count: 3, label: 'Based on (3)' },
      { type: 'uses', count: 3, label: 'Uses (3)' },
      { type: 'part-of', count: 1, label: 'Part of (1)' },
    ]);
  });
});
