import { describe, expect, it } from 'vitest';
import { deleteConsequence } from './delete-rules';

describe('deleteConsequence', () => {
  it('says how many observations and relations go with the entity', () => {
    expect(deleteConsequence(3, 2)).toBe(
      'It has 3 observations and 2 relations; they are deleted with it.',
    );
    expect(deleteConsequence(1, 1)).toBe(
      'It has 1 observation and 1 relation; they are deleted with it.',
    );
    expect(deleteConsequence(1, 0)).toBe(
      'It has 1 observation and no relations; it is deleted with it.',
    );
    expect(deleteConsequence(0, 1)).toBe(
      'It has no observations and 1 relation; it is deleted with it.',
    );
    expect(deleteConsequence(1200, 0)).toBe(
      'It has 1,200 observations and no relations; they are deleted with it.',
    );
  });

  it('says when nothing goes with it', () => {
    expect(deleteConsequence(0, 0)).toBe('It has no observations or relations.');
  });

  it('still names the relations while their count is unknown', () => {
    expect(deleteConsequence(3, undefined)).toBe(
      'It has 3 observations; they and its relations are deleted with it.',
    );
    expect(deleteConsequence(0, undefined)).toBe(
      'It has no observations; its relations are deleted with it.',
    );
  });
});
