import { describe, expect, it } from 'vitest';
import {
  checkEntityForm,
  cleanObservationTexts,
  emptyEntityForm,
  entityFormOf,
  observationsToSend,
  typeChoices,
  type EntityFormValues,
} from './entity-form-rules';

const VALID: EntityFormValues = {
  name: 'Ada Lovelace',
  type: 'person',
  customType: null,
  metadata: '',
  observations: [''],
};

describe('checkEntityForm', () => {
  it('reports every broken rule at once, in the documented order', () => {
    expect(checkEntityForm({ ...VALID, name: '   ', type: '', metadata: '{bad' })).toEqual({
      ok: false,
      errors: [
        { field: 'name', message: 'Name is required' },
        { field: 'type', message: 'Type is required' },
        { field: 'metadata', message: 'Invalid JSON format' },
      ],
    });
    expect(checkEntityForm({ ...VALID, name: '', customType: '  ', metadata: '[1, 2]' })).toEqual({
      ok: false,
      errors: [
        { field: 'name', message: 'Name is required' },
        { field: 'type', message: 'Type is required' },
        { field: 'metadata', message: 'Metadata must be a JSON object' },
      ],
    });
  });

  it('reports each rule alone when only it is broken', () => {
    const cases: [Partial<EntityFormValues>, string, string][] = [
      [{ name: '' }, 'Name is required', 'name'],
      [{ name: '   ' }, 'Name is required', 'name'],
      [{ type: '' }, 'Type is required', 'type'],
      [{ type: 'person', customType: '  ' }, 'Type is required', 'type'],
      [{ metadata: '{bad' }, 'Invalid JSON format', 'metadata'],
      [{ metadata: "{'single': 'quotes'}" }, 'Invalid JSON format', 'metadata'],
      [{ metadata: '[1, 2]' }, 'Metadata must be a JSON object', 'metadata'],
      [{ metadata: '"text"' }, 'Metadata must be a JSON object', 'metadata'],
    ];
    for (const [overrides, message, field] of cases) {
      expect(checkEntityForm({ ...VALID, ...overrides })).toEqual({
        ok: false,
        errors: [{ field, message }],
      });
    }
  });

  it('trims the name and type, parses metadata and drops blank observations', () => {
    expect(
      checkEntityForm({
        name: '  Ada Lovelace ',
        type: 'person',
        customType: '  mathematician ',
        metadata: ' {"born": 1815, "tags": ["math"]} ',
        observations: ['  Wrote the first program ', '', '   ', 'Worked with Babbage'],
      }),
    ).toEqual({
      ok: true,
      input: {
        name: 'Ada Lovelace',
        type: 'mathematician',
        metadata: { born: 1815, tags: ['math'] },
        observations: ['Wrote the first program', 'Worked with Babbage'],
      },
    });
  });

  it('takes the listed type until Custom Type... is chosen, and blank metadata as none', () => {
    expect(checkEntityForm({ ...VALID, metadata: '   ' })).toEqual({
      ok: true,
      input: { name: 'Ada Lovelace', type: 'person', metadata: {}, observations: [] },
    });
  });
});

describe('the form values', () => {
  it('a new entity starts with one empty observation box', () => {
    expect(emptyEntityForm()).toEqual({
      name: '',
      type: '',
      customType: null,
      metadata: '',
      observations: [''],
    });
  });

  it('an entity being edited shows its metadata pretty-printed and its observations', () => {
    const values = entityFormOf({
      name: 'Ada',
      type: 'person',
      metadata: { born: 1815 },
      observations: [{ content: 'First' }, { content: 'Second' }],
    });
    expect(values.metadata).toBe('{\n  "born": 1815\n}');
    expect(values.observations).toEqual(['First', 'Second']);
    expect(
      entityFormOf({ name: 'Ada', type: 'person', metadata: {}, observations: [] }),
    ).toMatchObject({ metadata: '', observations: [''] });
  });

  it('cleanObservationTexts trims, drops blanks and repeats', () => {
    expect(cleanObservationTexts([' a ', '', 'b', 'a', '\n'])).toEqual(['a', 'b']);
  });

  it('offers the account’s types first, then the known ones, then the current type', () => {
    expect(typeChoices(['person', 'mathematician'])).toEqual([
      'person',
      'mathematician',
      'concept',
      'company',
      'technology',
      'product',
      'event',
    ]);
    expect(typeChoices([], 'robot').at(-1)).toBe('robot');
    expect(typeChoices([])).not.toContain('observation');
  });

  it('with a search, adds only the known and current types that start with it, in any case', () => {
    // The account's types are the server's answer to the search: kept as they are.
    expect(typeChoices(['Perspective'], 'Person', 'PER')).toEqual([
      'Perspective',
      'person',
      'Person',
    ]);
    expect(typeChoices([], 'robot', 'co')).toEqual(['concept', 'company']);
    expect(typeChoices([], undefined, 'zz')).toEqual([]);
  });
});

describe('observationsToSend (an edit keeps what was not touched)', () => {
  const shown = [
    { id: 'o1', content: 'First' },
    { id: 'o2', content: 'Second' },
  ];

  it('sends nothing when the list is unchanged, so the server leaves it alone', () => {
    expect(observationsToSend(shown, ['First', 'Second', '  '])).toBeUndefined();
    expect(observationsToSend(shown, [' First ', 'Second'])).toBeUndefined();
  });

  it('sends the edited list: kept texts (the server keeps their ids), minus removed, plus new', () => {
    expect(observationsToSend(shown, ['First', 'Third'])).toEqual(['First', 'Third']);
    expect(observationsToSend(shown, ['Second', 'First'])).toEqual(['Second', 'First']);
  });

  it('keeps observations that arrived while the form was open', () => {
    const latest = [...shown, { id: 'o3', content: 'Added by an agent' }];
    expect(observationsToSend(shown, ['First'], latest)).toEqual(['First', 'Added by an agent']);
    // A removal the person made is not undone by the newer read.
    expect(observationsToSend(shown, ['Second'], latest)).not.toContain('First');
  });
});
