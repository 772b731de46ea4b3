import { describe, expect, it } from 'vitest';
import { addAlias, removeAlias } from './alias-rules';

const ADA = { name: 'Ada Lovelace', aliases: ['A. Lovelace'] };

describe('aliases on the entity page', () => {
  it('adds a trimmed alias at the end', () => {
    expect(addAlias(ADA, '  Countess of Lovelace ')).toEqual({
      ok: true,
      aliases: ['A. Lovelace', 'Countess of Lovelace'],
    });
  });

  it('refuses a blank one, a repeat, the name itself, one too long, one too many', () => {
    expect(addAlias(ADA, '   ')).toEqual({ ok: false, message: 'Type a name to add' });
    expect(addAlias(ADA, 'A. Lovelace')).toEqual({
      ok: false,
      message: 'That is already an alias',
    });
    expect(addAlias(ADA, 'Ada Lovelace')).toEqual({
      ok: false,
      message: 'That is already its name',
    });
    expect(addAlias(ADA, 'x'.repeat(201))).toEqual({
      ok: false,
      message: 'An alias must be at most 200 characters',
    });
    const full = { name: 'A', aliases: Array.from({ length: 20 }, (_, index) => `a${index}`) };
    expect(addAlias(full, 'one more')).toEqual({
      ok: false,
      message: 'An entity has at most 20 aliases',
    });
  });

  it('removes one', () => {
    expect(removeAlias(ADA, 'A. Lovelace')).toEqual([]);
  });
});
