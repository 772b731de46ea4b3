import type { DuplicateList } from '@engram/shared';
import { describe, expect, it } from 'vitest';
import { CATCHING_UP_READS, whileCatchingUp } from './list-duplicate-pages';

const page = (upToDate: boolean): DuplicateList => ({ candidates: [], nextCursor: null, upToDate });
const state = (pages: DuplicateList[] | undefined, dataUpdateCount = 1) => ({
  state: { data: pages && { pages, pageParams: pages.map(() => null) }, dataUpdateCount },
});

describe('reading the list again while the finder catches up', () => {
  it('reads again in a few seconds while a page says it is not up to date', () => {
    expect(whileCatchingUp(state([page(true), page(false)]))).toBe(3_000);
  });

  it('not while every page is up to date, nor before the first answer', () => {
    expect(whileCatchingUp(state([page(true), page(true)]))).toBe(false);
    expect(whileCatchingUp(state(undefined))).toBe(false);
  });

  it('stops after a bounded number of reads: an idle tab spends no operations', () => {
    expect(whileCatchingUp(state([page(false)], CATCHING_UP_READS - 1))).toBe(3_000);
    expect(whileCatchingUp(state([page(false)], CATCHING_UP_READS))).toBe(false);
  });
});
