import { describe, expect, it } from 'vitest';
import { RECENT_DAYS, timeInQuestion } from './time-words.js';

// Wednesday 12 June 2024, 15:30 UTC.
const NOW = new Date('2024-06-12T15:30:00.000Z');

const range = (question: string, now = NOW) => {
  const time = timeInQuestion(question, now);
  return (
    time && { since: time.since?.toISOString() ?? null, until: time.until?.toISOString() ?? null }
  );
};

describe('time words in a question', () => {
  it('reads days relative to now', () => {
    expect(range('What did Sam do yesterday?')).toEqual({
      since: '2024-06-11T00:00:00.000Z',
      until: '2024-06-11T23:59:59.999Z',
    });
    expect(range('anything new today?')).toEqual({
      since: '2024-06-12T00:00:00.000Z',
      until: '2024-06-12T23:59:59.999Z',
    });
  });

  it('reads last week, month and year as the previous calendar ones', () => {
    // The week of Wednesday 12 June starts on Monday 10 June.
    expect(range('what changed last week?')).toEqual({
      since: '2024-06-03T00:00:00.000Z',
      until: '2024-06-09T23:59:59.999Z',
    });
    expect(range('What happened last month?')).toEqual({
      since: '2024-05-01T00:00:00.000Z',
      until: '2024-05-31T23:59:59.999Z',
    });
    expect(range('Where did Ada live last year?')).toEqual({
      since: '2023-01-01T00:00:00.000Z',
      until: '2023-12-31T23:59:59.999Z',
    });
    // On a Monday and a Sunday, and across a year's turn.
    expect(range('last week', new Date('2024-06-10T00:00:00Z'))?.since).toBe(
      '2024-06-03T00:00:00.000Z',
    );
    expect(range('last week', new Date('2024-06-16T23:00:00Z'))?.until).toBe(
      '2024-06-09T23:59:59.999Z',
    );
    expect(range('last month', new Date('2024-01-15T00:00:00Z'))).toEqual({
      since: '2023-12-01T00:00:00.000Z',
      until: '2023-12-31T23:59:59.999Z',
    });
    expect(range('this month')).toEqual({
      since: '2024-06-01T00:00:00.000Z',
      until: '2024-06-30T23:59:59.999Z',
    });
  });

  it('reads months, years and days named in the question', () => {
    expect(range('What did Sam do in March 2024?')).toEqual({
      since: '2024-03-01T00:00:00.000Z',
      until: '2024-03-31T23:59:59.999Z',
    });
    expect(range('Who did Maya meet in 2023?')).toEqual({
      since: '2023-01-01T00:00:00.000Z',
      until: '2023-12-31T23:59:59.999Z',
    });
    expect(range('what happened on 3 March 2024')).toEqual({
      since: '2024-03-03T00:00:00.000Z',
      until: '2024-03-03T23:59:59.999Z',
    });
    expect(range('February 29, 2024 plans')).toEqual({
      since: '2024-02-29T00:00:00.000Z',
      until: '2024-02-29T23:59:59.999Z',
    });
    expect(range('notes from 2024-05-20?')?.since).toBe('2024-05-20T00:00:00.000Z');
    // A month alone after "in": the latest that began by now.
    expect(range('what did we plan in May?')?.since).toBe('2024-05-01T00:00:00.000Z');
    expect(range('what did we plan in September?')?.since).toBe('2023-09-01T00:00:00.000Z');
  });

  it('reads years from 1 to 9999 as written, not as this year', () => {
    expect(range('What happened in September 1843?')).toEqual({
      since: '1843-09-01T00:00:00.000Z',
      until: '1843-09-30T23:59:59.999Z',
    });
    expect(range('What did Ada publish in 1843?')).toEqual({
      since: '1843-01-01T00:00:00.000Z',
      until: '1843-12-31T23:59:59.999Z',
    });
    expect(range('what was built before 1900')).toEqual({
      since: null,
      until: '1899-12-31T23:59:59.999Z',
    });
    expect(range('Who has ruled England since 1066?')).toEqual({
      since: '1066-01-01T00:00:00.000Z',
      until: null,
    });
    expect(range('What happened in 1843 in London?')?.since).toBe('1843-01-01T00:00:00.000Z');
    expect(range('between 1843 and 1850')).toEqual({
      since: '1843-01-01T00:00:00.000Z',
      until: '1850-12-31T23:59:59.999Z',
    });
    expect(range('born on the 10th of December 1815')?.since).toBe('1815-12-10T00:00:00.000Z');
    expect(range('during 2150')?.until).toBe('2150-12-31T23:59:59.999Z');
    expect(range('in 9999')?.until).toBe('9999-12-31T23:59:59.999Z');
    // Years 1 to 999 in an ISO date, as written (not 1900 + the year).
    expect(range('what happened on 0043-09-01?')).toEqual({
      since: '0043-09-01T00:00:00.000Z',
      until: '0043-09-01T23:59:59.999Z',
    });
    expect(range('in 0800-05-01')?.since).toBe('0800-05-01T00:00:00.000Z');
    // A range past the times stored ends at their edge.
    expect(range('after 9999-12-31')).toEqual({ since: '9999-12-31T23:59:59.999Z', until: null });
    expect(range('before 0001-01-01')).toEqual({ since: null, until: '0001-01-01T00:00:00.000Z' });
    expect(range('last year', new Date('0001-06-01T00:00:00Z'))).toEqual({
      since: '0001-01-01T00:00:00.000Z',
      until: '0001-01-01T00:00:00.000Z',
    });
    // After "by" a year alone counts from 1900 to 2099, as before.
    expect(range('what must be done by 2030')?.until).toBe('2030-12-31T23:59:59.999Z');
  });

  it('reads before, after, since and between as open or closed bounds', () => {
    expect(range('Where did Ada work before 2020?')).toEqual({
      since: null,
      until: '2019-12-31T23:59:59.999Z',
    });
    expect(range('What did Ada do after March 2024?')).toEqual({
      since: '2024-04-01T00:00:00.000Z',
      until: null,
    });
    expect(range('since 2024-05-01, what changed')).toEqual({
      since: '2024-05-01T00:00:00.000Z',
      until: null,
    });
    expect(range('between January 2024 and March 2024')).toEqual({
      since: '2024-01-01T00:00:00.000Z',
      until: '2024-03-31T23:59:59.999Z',
    });
    expect(range('after 2021 and before 2023')).toEqual({
      since: '2022-01-01T00:00:00.000Z',
      until: '2022-12-31T23:59:59.999Z',
    });
  });

  it('reads recently as the last days up to now', () => {
    expect(range('what did Leo do recently?')).toEqual({
      since: new Date(NOW.getTime() - RECENT_DAYS * 86_400_000).toISOString(),
      until: NOW.toISOString(),
    });
    expect(range('in the past 2 weeks')).toEqual({
      since: '2024-05-29T15:30:00.000Z',
      until: NOW.toISOString(),
    });
    expect(range('over the last three months')?.since).toBe('2024-03-12T15:30:00.000Z');
  });

  it('reads now and currently as facts holding now', () => {
    for (const question of ['Where does Ada work now?', 'what is she currently reading']) {
      const time = timeInQuestion(question, NOW)!;
      expect(time).toMatchObject({ since: null, until: NOW, current: true });
    }
    // An explicit range wins.
    expect(timeInQuestion('where was Ada working in 2023, and now?', NOW)?.current).toBe(false);
  });

  it('says which words named the time', async () => {
    expect(timeInQuestion('what did Leo cook last week?', NOW)?.phrases).toBe('last week');
    expect(timeInQuestion('Where does Ada currently work?', NOW)?.phrases).toBe('currently');
    expect(timeInQuestion('What did Sam do in March 2024?', NOW)?.phrases).toBe('March 2024');
    expect(timeInQuestion('between January 2024 and 3 May 2024', NOW)?.phrases).toBe(
      'January 2024 3 May 2024',
    );
  });

  it('finds no range where no time is named', () => {
    for (const question of [
      'Where is Leo working?',
      'What may Sam bring to the party?',
      'the march on Washington',
      'after work he runs 2000 meters',
      'in 31 February 2024',
      // Numbers that count something (a year alone is read from 1000 to 9999).
      'what is the snowfall in 1850 mm?',
      'did Sam run in 1500 meters races',
      'the club has a population of 1500',
      'Rome was founded in 753 BC',
      'what was built in 1200 BC?',
      'between 1000 and 5000 rows',
      'in 3 apples',
      'in 0800',
      'on 0000-01-01',
    ]) {
      expect(range(question), question).toBeNull();
    }
  });
});
