import { describe, expect, it } from 'vitest';
import { shareKeepingOrder } from './query-client';

describe('shareKeepingOrder', () => {
  const old = { entities: [{ id: 'e1', metadata: { zeta: 1, a: 2, mid: { y: 1, b: 2 } } }] };

  it('keeps the old data when nothing changed, so nothing renders again', () => {
    expect(shareKeepingOrder(old, structuredClone(old))).toBe(old);
  });

  it('takes the new data when only the order of some keys changed, at any depth', () => {
    const moved = { entities: [{ id: 'e1', metadata: { zeta: 1, a: 2, mid: { b: 2, y: 1 } } }] };
    const shared = shareKeepingOrder(old, moved);
    expect(shared).toBe(moved);
    expect(JSON.stringify(shared)).toBe(JSON.stringify(moved));
  });

  it('still shares the unchanged parts of a changed answer', () => {
    const next = { entities: [structuredClone(old.entities[0]), { id: 'e2', metadata: {} }] };
    const shared = shareKeepingOrder(old, next) as typeof next;
    expect(shared).not.toBe(old);
    expect(shared.entities[0]).toBe(old.entities[0]);
  });
});
