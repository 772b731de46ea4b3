import { describe, expect, it } from 'vitest';
import {
  emptySummary,
  formatDay,
  monthDays,
  progressBar,
  upgradeHint,
  usagePercent,
  usageWarning,
} from './usage-rules';

describe('dashboard usage rules', () => {
  it('warns at 80% and at 95% of the entity limit, inclusive', () => {
    expect(usageWarning(799, 1000).level).toBe('none');
    expect(usageWarning(800, 1000)).toEqual({ level: 'warning', percent: 80 });
    expect(usageWarning(949, 1000).level).toBe('warning');
    expect(usageWarning(950, 1000)).toEqual({ level: 'critical', percent: 95 });
    expect(usageWarning(5000, 1000).level).toBe('critical');
    // Unlimited plans never warn.
    expect(usageWarning(5_000_000, -1)).toEqual({ level: 'none', percent: null });
  });

  it('caps progress bars at 100% and marks them red only past 100%', () => {
    expect(progressBar(usagePercent(50, 200))).toEqual({ width: 25, over: false });
    expect(progressBar(usagePercent(1000, 1000))).toEqual({ width: 100, over: false });
    expect(progressBar(usagePercent(1001, 1000))).toEqual({ width: 100, over: true });
    expect(progressBar(usagePercent(3, 0))).toEqual({ width: 0, over: false });
    expect(progressBar(usagePercent(3, -1))).toEqual({ width: 0, over: false });
  });

  it('suggests the next plan with the catalog’s monthly price, then Enterprise', () => {
    expect(upgradeHint('free')).toEqual({ kind: 'plan', name: 'Starter', price: '$10/month' });
    expect(upgradeHint('starter')).toEqual({ kind: 'plan', name: 'Pro', price: '$20/month' });
    expect(upgradeHint('starter-annual')).toEqual({
      kind: 'plan',
      name: 'Pro',
      price: '$20/month',
    });
    expect(upgradeHint('pro')).toEqual({ kind: 'plan', name: 'Team Pro', price: '$60/month' });
    expect(upgradeHint('team')).toEqual({ kind: 'enterprise' });
    expect(upgradeHint('something-else')).toEqual({ kind: 'enterprise' });
  });

  it('defaults to zeros on the free plan (the failed state)', () => {
    const empty = emptySummary();
    expect(empty).toMatchObject({
      totalEntities: 0,
      todayApiCalls: 0,
      userPlan: 'free',
      plan: {
        id: 'free',
        limits: { entities: 1000, operationsPerMonth: 15000, apiKeys: 1, webhooks: 0 },
      },
    });
  });

  it('formats UTC days without shifting them and fills the month’s days for the chart', () => {
    expect(formatDay('2026-11-05')).toBe('Nov 5, 2026');
    const days = monthDays(
      [{ date: '2026-11-02', queries: 3, creates: 1, updates: 1, deletes: 0, total: 5 }],
      new Date('2026-11-03T12:00:00Z'),
    );
    expect(days).toEqual([
      { date: '2026-11-01', day: 1, total: 0, queries: 0, writes: 0 },
      { date: '2026-11-02', day: 2, total: 5, queries: 3, writes: 2 },
      { date: '2026-11-03', day: 3, total: 0, queries: 0, writes: 0 },
    ]);
  });
});
