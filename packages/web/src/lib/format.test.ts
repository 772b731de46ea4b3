import { describe, expect, it } from 'vitest';
import { pluralize } from './format';

describe('pluralize', () => {
  it('uses the singular for exactly one, and groups thousands', () => {
    expect(pluralize(1, 'delete')).toBe('1 delete');
    expect(pluralize(0, 'delete')).toBe('0 deletes');
    expect(pluralize(2, 'query', 'queries')).toBe('2 queries');
    expect(pluralize(1, 'query', 'queries')).toBe('1 query');
    expect(pluralize(1234, 'operation')).toBe('1,234 operations');
  });
});
