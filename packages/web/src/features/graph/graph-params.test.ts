import { describe, expect, it } from 'vitest';
import { graphParamNotices, graphSearch, parseGraphParams } from './graph-params';

describe('parseGraphParams', () => {
  const parse = (query: string) => parseGraphParams(new URLSearchParams(query));

  it('defaults to limit 250 and depth 2', () => {
    expect(parse('')).toEqual({ limit: 250, depth: 2 });
  });

  it('reads the offered values', () => {
    expect(parse('limit=100&depth=1')).toEqual({ limit: 100, depth: 1 });
    expect(parse('limit=500&depth=5')).toEqual({ limit: 500, depth: 5 });
  });

  it('falls back to the default for anything not offered', () => {
    for (const bad of ['abc', '0', '-100', '1000', '250.5', '2e2', ' 100', '', '99']) {
      expect(parse(`limit=${encodeURIComponent(bad)}`).limit, `limit=${bad}`).toBe(250);
    }
    for (const bad of ['0', '6', '-1', '2.5', 'two', '', '1e0']) {
      expect(parse(`depth=${encodeURIComponent(bad)}`).depth, `depth=${bad}`).toBe(2);
    }
    expect(parse('limit=7&depth=3')).toEqual({ limit: 250, depth: 3 });
  });

  it('writes limit and depth back, keeping other parameters', () => {
    const search = graphSearch({ limit: 500, depth: 4 }, new URLSearchParams('x=1&limit=100'));
    expect(search.toString()).toBe('x=1&limit=500&depth=4');
    expect(parseGraphParams(search)).toEqual({ limit: 500, depth: 4 });
  });
});

describe('graphParamNotices', () => {
  const notices = (query: string) => graphParamNotices(new URLSearchParams(query));

  it('says nothing for offered or absent values', () => {
    expect(notices('')).toEqual([]);
    expect(notices('limit=100&depth=5')).toEqual([]);
    expect(notices('limit=&depth=')).toEqual([]);
  });

  it('names a value not offered and the one used instead', () => {
    expect(notices('limit=99999')).toEqual([
      'Limit 99999 is not one of the options (100, 250, 500); showing 250.',
    ]);
    expect(notices('limit=1000&depth=0')).toEqual([
      'Limit 1000 is not one of the options (100, 250, 500); showing 250.',
      'Depth 0 is not one of the options (1, 2, 3, 4, 5); using 2.',
    ]);
    // The selectors' other value is kept.
    expect(notices('limit=abc&depth=4')).toEqual([
      'Limit abc is not one of the options (100, 250, 500); showing 250.',
    ]);
  });

  it('cuts a long value', () => {
    expect(notices(`limit=${'9'.repeat(40)}`)[0]).toBe(
      'Limit 999999999999… is not one of the options (100, 250, 500); showing 250.',
    );
  });
});
