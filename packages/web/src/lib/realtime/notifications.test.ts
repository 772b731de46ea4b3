import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GraphEvent } from './messages';
import { describeEvent, NotificationQueue } from './notifications';

let seq = 0;
/** A graph event in the shared `graphChange` shape, as the gateway sends it. */
function event<T extends GraphEvent['type']>(
  type: T,
  payload: Extract<GraphEvent, { type: T }>['payload'],
): GraphEvent {
  seq += 1;
  return {
    id: `event-${seq}`,
    type,
    seq,
    payload,
    timestamp: '2026-11-02T10:00:00.000Z',
  } as GraphEvent;
}

const entity = (name: string, type = 'person') => ({ entityId: 'e1', id: 'e1', name, type });
const relation = (relationType: string) => ({
  relationId: 'r1',
  id: 'r1',
  fromEntityId: 'e1',
  toEntityId: 'e2',
  relationType,
});

describe('describeEvent', () => {
  it('words every event type, with names where the event has them', () => {
    const cases: [GraphEvent, string, string | undefined][] = [
      [event('entity_created', entity('Alice')), 'Entity "Alice" created', 'person'],
      [event('entity_updated', entity('Alice')), 'Entity "Alice" updated', 'person'],
      [event('entity_deleted', entity('Alice')), 'Entity "Alice" deleted', 'person'],
      [event('entity_deleted', entity('', '')), 'Entity deleted', undefined],
      [
        event('observation_added', {
          entityId: 'e1',
          observations: [{ id: 'o', content: 'Likes tea' }],
        }),
        'Observation added',
        '"Likes tea"',
      ],
      [
        event('observation_added', {
          entityId: 'e1',
          observations: [
            { id: 'o1', content: 'a' },
            { id: 'o2', content: 'b' },
          ],
        }),
        '2 observations added',
        '"a"',
      ],
      [
        event('observation_added', { entityId: 'e1', observations: [] }),
        'Observation added',
        undefined,
      ],
      [event('relation_created', relation('uses')), 'Relation "Uses" created', undefined],
      [event('relation_updated', relation('needs')), 'Relation "Needs" updated', undefined],
      [event('relation_updated', relation('')), 'Relation updated', undefined],
      [event('relation_deleted', relation('uses')), 'Relation "Uses" deleted', undefined],
      // Worded as the relations table shows the type.
      [event('relation_created', relation('based_on')), 'Relation "Based on" created', undefined],
      [event('relation_created', relation('part-of')), 'Relation "Part of" created', undefined],
    ];
    for (const [input, title, detail] of cases) {
      expect(describeEvent(input)).toEqual({ title, detail });
    }
  });

  it('words a merge: how many went into which entity, and the names they had', () => {
    const merged = (mergedNames: string[], name = 'Ada Lovelace') =>
      event('entity_merged', {
        entityId: 'e1',
        name,
        mergedIds: mergedNames.map((_, index) => `s${index}`),
        mergedNames,
      });
    expect(describeEvent(merged(['A. Lovelace', 'ada lovelace']))).toEqual({
      title: 'Merged 2 entities into "Ada Lovelace"',
      detail: '"A. Lovelace", "ada lovelace"',
    });
    expect(describeEvent(merged(['Ada']))).toEqual({
      title: 'Merged 1 entity into "Ada Lovelace"',
      detail: '"Ada"',
    });
    expect(describeEvent(merged([], ''))).toEqual({ title: 'Merged 1 entity', detail: undefined });
  });

  it('shortens long names', () => {
    const { title } = describeEvent(event('entity_created', entity('x'.repeat(200))));
    expect(title.length).toBeLessThan(80);
    expect(title).toMatch(/…" created$/);
  });
});

describe('NotificationQueue', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('keeps the last 5, newest first', () => {
    const queue = new NotificationQueue();
    for (let n = 1; n <= 7; n++) queue.addEvent(event('entity_created', entity(`E${n}`)));
    expect(queue.getSnapshot().map((item) => item.title)).toEqual([
      'Entity "E7" created',
      'Entity "E6" created',
      'Entity "E5" created',
      'Entity "E4" created',
      'Entity "E3" created',
    ]);
  });

  it('drops each notification 10 s after it arrived', () => {
    const queue = new NotificationQueue();
    queue.addEvent(event('entity_created', entity('First')));
    vi.advanceTimersByTime(4_000);
    queue.addEvent(event('entity_created', entity('Second')));
    vi.advanceTimersByTime(5_999);
    expect(queue.getSnapshot()).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(queue.getSnapshot().map((item) => item.title)).toEqual(['Entity "Second" created']);
    vi.advanceTimersByTime(4_000);
    expect(queue.getSnapshot()).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('dismisses one, tells listeners, and forgets timers of dropped ones', () => {
    const queue = new NotificationQueue();
    const listener = vi.fn();
    queue.subscribe(listener);
    const first = queue.addEvent(event('relation_created', relation('uses')));
    queue.addEvent(event('relation_deleted', relation('')));
    queue.dismiss(first.id);
    expect(queue.getSnapshot().map((item) => item.title)).toEqual(['Relation deleted']);
    expect(listener).toHaveBeenCalledTimes(3);
    expect(vi.getTimerCount()).toBe(1);

    for (let n = 0; n < 10; n++) queue.addEvent(event('entity_updated', entity('A')));
    expect(vi.getTimerCount()).toBe(5);
    queue.clear();
    expect(queue.getSnapshot()).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives repeated events distinct ids', () => {
    const queue = new NotificationQueue();
    const same = event('entity_deleted', entity('A'));
    const a = queue.addEvent(same);
    const b = queue.addEvent(same);
    expect(a.id).not.toBe(b.id);
  });
});
