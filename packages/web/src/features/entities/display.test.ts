import { describe, expect, it } from 'vitest';
import { entityCountLabel, metadataPreview, observationCountLabel } from './display';

describe('metadataPreview', () => {
  it('shows at most 3 key:value pairs, in order', () => {
    expect(metadataPreview({ a: 1, b: 'two', c: true, d: 4 })).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: 'two' },
      { key: 'c', value: 'true' },
    ]);
  });

  it('writes strings as they are and anything else as compact JSON', () => {
    expect(metadataPreview({ tags: ['x', 'y'], nested: { k: null }, none: null })).toEqual([
      { key: 'tags', value: '["x","y"]' },
      { key: 'nested', value: '{"k":null}' },
      { key: 'none', value: 'null' },
    ]);
  });

  it('is empty without metadata', () => {
    expect(metadataPreview({})).toEqual([]);
  });
});

describe('count labels', () => {
  it('say entity or entities', () => {
    expect(entityCountLabel(0)).toBe('0 entities');
    expect(entityCountLabel(1)).toBe('1 entity');
    expect(entityCountLabel(5000)).toBe('5,000 entities');
    expect(observationCountLabel(1)).toBe('1 observation');
    expect(observationCountLabel(3)).toBe('3 observations');
  });
});
