import { describe, expect, it } from 'vitest';
import { resultCountLabel, stepActive } from './search-rules';

describe('resultCountLabel', () => {
  it('counts results in words', () => {
    expect(resultCountLabel(1)).toBe('1 result');
    expect(resultCountLabel(0)).toBe('0 results');
    expect(resultCountLabel(1200)).toBe('1,200 results');
  });
});

describe('stepActive', () => {
  it('enters the list from the query box and stops at its end', () => {
    expect(stepActive(-1, 1, 3)).toBe(0);
    expect(stepActive(0, 1, 3)).toBe(1);
    expect(stepActive(2, 1, 3)).toBe(2);
  });

  it('returns to the query box above the first result', () => {
    expect(stepActive(1, -1, 3)).toBe(0);
    expect(stepActive(0, -1, 3)).toBe(-1);
    expect(stepActive(-1, -1, 3)).toBe(-1);
  });

  it('has nowhere to go without results, and clamps a position past a shorter list', () => {
    expect(stepActive(-1, 1, 0)).toBe(-1);
    expect(stepActive(7, -1, 3)).toBe(1);
  });
});
