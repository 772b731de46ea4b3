import type { WebhookDelivery } from '@engram/shared';
import { describe, expect, it } from 'vitest';
import {
  atLimit,
  endpointState,
  eventsLabel,
  eventsToSend,
  formatDuration,
  formatNextRetry,
  limitLabel,
  sentSummary,
} from './webhook-display';

const delivery = (overrides: Partial<WebhookDelivery>): WebhookDelivery => ({
  id: 'd1',
  eventId: 'evt_1',
  event: 'ping',
  seq: null,
  status: 'succeeded',
  statusCode: 200,
  durationMs: 84,
  attempt: 1,
  nextRetryAt: null,
  error: null,
  responseExcerpt: null,
  manual: true,
  createdAt: '2027-01-05T10:00:00.000Z',
  updatedAt: '2027-01-05T10:00:00.000Z',
  ...overrides,
});

describe('webhook display', () => {
  it('names the events heard: all, or the list', () => {
    expect(eventsLabel(['*'])).toBe('All events');
    expect(eventsLabel(['entity_created', 'relation_deleted'])).toBe(
      'entity_created, relation_deleted',
    );
  });

  it('sends "*" for all events, else the ticked ones in catalog order', () => {
    expect(eventsToSend(true, ['entity_created'])).toEqual(['*']);
    expect(eventsToSend(false, ['relation_created', 'entity_created', 'bogus'])).toEqual([
      'entity_created',
      'relation_created',
    ]);
  });

  it('says the plan limit as "n of m endpoints", or Unlimited', () => {
    expect(limitLabel(2, 5)).toBe('2 of 5 endpoints');
    expect(limitLabel(0, 1)).toBe('0 of 1 endpoint');
    expect(limitLabel(3, -1)).toBe('3 endpoints · Unlimited');
    expect(limitLabel(1, -1)).toBe('1 endpoint · Unlimited');
    expect(atLimit(5, 5)).toBe(true);
    expect(atLimit(4, 5)).toBe(false);
    expect(atLimit(99, -1)).toBe(false);
    expect(atLimit(3, undefined)).toBe(false);
  });

  it('tells an endpoint turned off by Engram from one a person disabled', () => {
    const base = { enabled: true, disabledReason: null, failingSince: null };
    expect(endpointState(base)).toBe('active');
    expect(endpointState({ ...base, failingSince: '2027-01-05T10:00:00Z' })).toBe('failing');
    expect(endpointState({ ...base, enabled: false })).toBe('disabled');
    expect(endpointState({ ...base, enabled: false, disabledReason: 'Failed for 24 hours' })).toBe(
      'turned-off',
    );
  });

  it('formats durations and the next retry', () => {
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(84)).toBe('84 ms');
    expect(formatDuration(1234)).toBe('1.2 s');
    expect(formatDuration(15_000)).toBe('15 s');
    const now = Date.parse('2027-01-05T10:00:00Z');
    expect(formatNextRetry('2027-01-05T10:00:40Z', now)).toBe('in 40 s');
    expect(formatNextRetry('2027-01-05T10:05:00Z', now)).toBe('in 5 min');
    expect(formatNextRetry('2027-01-05T12:00:00Z', now)).toBe('in 2 h');
    expect(formatNextRetry('2027-01-05T09:00:00Z', now)).toBe('now');
  });

  it('sums up a send for its toast', () => {
    expect(sentSummary(delivery({}))).toBe('Delivered: 200 in 84 ms');
    expect(sentSummary(delivery({ status: 'failed', statusCode: 500, error: null }))).toBe(
      'Failed: HTTP 500',
    );
    expect(
      sentSummary(delivery({ status: 'failed', statusCode: null, error: 'Connection refused' })),
    ).toBe('Failed: Connection refused');
  });
});
