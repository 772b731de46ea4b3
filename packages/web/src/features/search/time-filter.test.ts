import { describe, expect, it } from 'vitest';
import {
  choiceOfRange,
  presetSince,
  questionRangeNote,
  rangeIsBackwards,
  rangeOfChoice,
  resultDate,
} from './time-filter';

const TODAY = new Date(2026, 2, 31, 15, 0); // Mar 31, 2026, local

describe('time filter', () => {
  it('counts the presets back from today, the month’s last day when shorter', () => {
    expect(presetSince('week', TODAY)).toBe('2026-03-24');
    expect(presetSince('month', TODAY)).toBe('2026-02-28');
    expect(presetSince('year', TODAY)).toBe('2025-03-31');
    expect(presetSince('week', new Date(2026, 0, 3))).toBe('2025-12-27');
  });

  it('reads a range from the address as a preset while it still is one, else custom', () => {
    const none = { since: null, until: null };
    expect(choiceOfRange(none, TODAY)).toBe('any');
    expect(choiceOfRange(rangeOfChoice('week', TODAY, none), TODAY)).toBe('week');
    expect(choiceOfRange(rangeOfChoice('year', TODAY, none), TODAY)).toBe('year');
    expect(choiceOfRange({ since: '2026-03-24', until: null }, new Date(2026, 3, 2))).toBe(
      'custom',
    );
    expect(choiceOfRange({ since: '2026-03-24', until: '2026-03-31' }, TODAY)).toBe('custom');
    expect(choiceOfRange({ since: null, until: '2026-03-31' }, TODAY)).toBe('custom');
    expect(rangeOfChoice('any', TODAY, { since: '2026-01-01', until: null })).toEqual(none);
  });

  it('knows a range that ends before it starts', () => {
    expect(rangeIsBackwards({ since: '2026-03-02', until: '2026-03-01' })).toBe(true);
    expect(rangeIsBackwards({ since: '2026-03-01', until: '2026-03-01' })).toBe(false);
    expect(rangeIsBackwards({ since: '2026-03-02', until: null })).toBe(false);
  });

  it('dates a result by the fact, a span, its end, else when it was noted', () => {
    const noted = '2027-01-05T10:00:00.000Z';
    const text = (r: Parameters<typeof resultDate>[0]) => {
      const date = resultDate(r);
      return [date.kind, date.lead, date.dates.map((day) => day.text).join(' – ')];
    };
    expect(text({ createdAt: noted, validFrom: '2026-03-01T00:00:00.000Z' })).toEqual([
      'fact',
      '',
      'Mar 1, 2026',
    ]);
    expect(
      text({
        createdAt: noted,
        validFrom: '2026-03-01T00:00:00.000Z',
        validTo: '2026-06-30T00:00:00.000Z',
      }),
    ).toEqual(['fact', '', 'Mar 1, 2026 – Jun 30, 2026']);
    expect(
      text({ createdAt: noted, validFrom: null, validTo: '2026-06-30T00:00:00.000Z' }),
    ).toEqual(['fact', 'until', 'Jun 30, 2026']);
    expect(text({ createdAt: noted, validFrom: null, validTo: null })).toEqual([
      'noted',
      'noted',
      'Jan 5, 2027',
    ]);
  });

  it('notes a range only when the question’s words set it', () => {
    const march = { since: '2026-03-01T00:00:00.000Z', until: '2026-03-31T23:59:59.999Z' };
    expect(questionRangeNote({ ...march, source: 'question' })).toBe(
      'Within Mar 1, 2026 – Mar 31, 2026 (from your question)',
    );
    expect(questionRangeNote({ since: march.since, until: null, source: 'question' })).toBe(
      'Since Mar 1, 2026 (from your question)',
    );
    expect(questionRangeNote({ ...march, source: 'parameters' })).toBeNull();
    expect(questionRangeNote(null)).toBeNull();
  });
});
