import { describe, expect, it } from 'vitest';
import { FULL_SCOPE, NO_SPACE_CHOSEN, permissionsOf, scopeLabel, scopeProblem } from './key-scope';

describe('scopeLabel: a key’s permissions in plain words', () => {
  it('reads the empty list as full access', () => {
    expect(scopeLabel([])).toBe('Full access');
  });

  it('names every space, read only or read and write', () => {
    expect(scopeLabel(['spaces:*:read'])).toBe('All spaces · read only');
    expect(scopeLabel(['spaces:*:write'])).toBe('All spaces · read and write');
  });

  it('names the chosen spaces by slug, grouped by what they allow', () => {
    expect(scopeLabel(['space:beta:write', 'space:alpha:write'])).toBe(
      'alpha, beta · read and write',
    );
    expect(scopeLabel(['space:alpha:read'])).toBe('alpha · read only');
    expect(scopeLabel(['space:gamma:read', 'space:alpha:write', 'space:beta:read'])).toBe(
      'alpha · read and write; beta, gamma · read only',
    );
  });

  it('counts write as including read, and a grant on every space as covering the chosen ones', () => {
    expect(scopeLabel(['space:alpha:read', 'space:alpha:write'])).toBe('alpha · read and write');
    expect(scopeLabel(['spaces:*:read', 'space:alpha:read', 'space:beta:write'])).toBe(
      'All spaces · read only; beta · read and write',
    );
    expect(scopeLabel(['spaces:*:write', 'space:alpha:read'])).toBe('All spaces · read and write');
  });

  it('reads grants it does not understand as no access', () => {
    expect(scopeLabel(['admin'])).toBe('No access');
  });
});

describe('permissionsOf: the choice made in the key form', () => {
  it('keeps the empty list for every space, read and write (the default)', () => {
    expect(permissionsOf(FULL_SCOPE)).toEqual([]);
  });

  it('grants read on every space', () => {
    expect(permissionsOf({ reach: 'all', slugs: ['alpha'], access: 'read' })).toEqual([
      'spaces:*:read',
    ]);
  });

  it('grants the chosen spaces, each once, in order', () => {
    expect(permissionsOf({ reach: 'chosen', slugs: ['beta', 'alpha'], access: 'read' })).toEqual([
      'space:alpha:read',
      'space:beta:read',
    ]);
    expect(permissionsOf({ reach: 'chosen', slugs: ['alpha'], access: 'write' })).toEqual([
      'space:alpha:write',
    ]);
  });

  it('asks for a space when none is chosen', () => {
    expect(scopeProblem({ reach: 'chosen', slugs: [], access: 'read' })).toBe(NO_SPACE_CHOSEN);
    expect(scopeProblem({ reach: 'chosen', slugs: ['alpha'], access: 'read' })).toBeNull();
    expect(scopeProblem(FULL_SCOPE)).toBeNull();
  });
});
