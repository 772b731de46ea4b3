import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../lib/change-event.js';
import { AccountFeeds, type FeedListener } from './account-feed.js';
import { LocalEventBus } from './event-bus.js';

// The per-account ordering layer over the real in-process bus: a change log
// in memory stands in for graph_events, and counts how often it is read.

const ACCOUNT = 'account-1';

function change(seq: number, accountId = ACCOUNT): ChangeEvent {
  return {
    type: 'entity_created',
    payload: { entityId: `e${seq}`, id: `e${seq}`, name: `n${seq}`, type: 'x' },
    accountId,
    spaceId: accountId,
    space: 'default',
    seq,
    at: new Date(0).toISOString(),
  };
}

function setup(options: { failReads?: boolean } = {}) {
  const bus = new LocalEventBus();
  const log: ChangeEvent[] = [];
  const reads: number[] = [];
  const feeds = new AccountFeeds(
    bus,
    async (accountId, afterSeq, limit) => {
      reads.push(afterSeq);
      if (options.failReads) throw new Error('database down');
      return log.filter((e) => e.accountId === accountId && e.seq > afterSeq).slice(0, limit);
    },
    () => {},
  );
  /** Commits to the log; publishes only when asked (a concurrent writer may publish late). */
  const commit = (...seqs: number[]) => log.push(...seqs.map((seq) => change(seq)));
  const publish = (...seqs: number[]) =>
    bus.publish(seqs.map((seq) => log.find((e) => e.seq === seq) ?? change(seq)));
  const listen = () => {
    const seen: number[] = [];
    const skipped: number[] = [];
    const listener: FeedListener = {
      event: (event) => seen.push(event.seq),
      skipped: (after) => skipped.push(after),
    };
    const stop = feeds.subscribe(ACCOUNT, listener);
    return { seen, skipped, stop };
  };
  return { bus, feeds, reads, commit, publish, listen };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('account feed', () => {
  it('passes events on in seq order, each once, to every listener of the account', async () => {
    const { commit, publish, listen } = setup();
    const a = listen();
    const b = listen();
    commit(1, 2, 3);
    publish(1, 2);
    publish(2, 3);
    await settle();
    expect(a.seen).toEqual([1, 2, 3]);
    expect(b.seen).toEqual([1, 2, 3]);
  });

  it('reorders a late publication without reading the log', async () => {
    const { commit, publish, listen, reads } = setup();
    const a = listen();
    commit(1, 2, 3);
    publish(1);
    publish(3);
    publish(2);
    await settle();
    expect(a.seen).toEqual([1, 2, 3]);
    expect(reads).toEqual([]);
  });

  it('fills a gap from the log once for the account, however many sockets follow it', async () => {
    const { commit, publish, listen, reads } = setup();
    const listeners = Array.from({ length: 50 }, listen);
    commit(1, 2, 3, 4, 5);
    publish(1);
    publish(4); // 2 and 3 committed, their publication lost
    publish(5);
    await settle();
    for (const listener of listeners) expect(listener.seen).toEqual([1, 2, 3, 4, 5]);
    expect(reads).toEqual([1]);
  });

  it('keeps other accounts out', async () => {
    const { bus, listen } = setup();
    const a = listen();
    bus.publish([change(1, 'account-2')]);
    await settle();
    expect(a.seen).toEqual([]);
  });

  it('says what it skipped when the log cannot be read, and goes on', async () => {
    const { commit, publish, listen } = setup({ failReads: true });
    const a = listen();
    commit(1, 2, 3, 4);
    publish(1);
    publish(3);
    publish(4);
    await settle();
    expect(a.skipped).toEqual([1]);
    expect(a.seen).toEqual([1, 3, 4]);
  });

  it('stops listening to the bus when the last socket leaves', async () => {
    const { commit, publish, listen } = setup();
    const a = listen();
    commit(1, 2);
    publish(1);
    a.stop();
    publish(2);
    const b = listen();
    commit(3);
    publish(3);
    await settle();
    expect(a.seen).toEqual([1]);
    // A new feed starts from the first event it sees.
    expect(b.seen).toEqual([3]);
  });
});
