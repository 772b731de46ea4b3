import { cutLabel } from '@/components/graph-canvas';

/*
 * The /graph address query (docs/product.md, The signed-in app; Numbers) as
 * plain functions: the Limit and Depth offered, what an address asks for, and
 * a notice for a value the selectors do not offer.
 */

/** The /graph selectors (docs/product.md, The signed-in app; Numbers). */
export const LIMIT_OPTIONS = [100, 250, 500] as const;
export const DEPTH_OPTIONS = [1, 2, 3, 4, 5] as const;
export const DEFAULT_LIMIT = 250;
export const DEFAULT_DEPTH = 2;

export type GraphLimit = (typeof LIMIT_OPTIONS)[number];
export type GraphDepth = (typeof DEPTH_OPTIONS)[number];

export interface GraphParams {
  limit: GraphLimit;
  depth: GraphDepth;
}

function pick<T extends number>(raw: string | null, options: readonly T[], fallback: T): T {
  if (raw === null || !/^\d+$/.test(raw)) return fallback;
  const value = Number(raw);
  return options.find((option) => option === value) ?? fallback;
}

/** limit and depth from the address query; anything not offered falls back to the default. */
export function parseGraphParams(search: URLSearchParams): GraphParams {
  return {
    limit: pick(search.get('limit'), LIMIT_OPTIONS, DEFAULT_LIMIT),
    depth: pick(search.get('depth'), DEPTH_OPTIONS, DEFAULT_DEPTH),
  };
}

/** Longest part of an unknown query value quoted back in a notice. */
const QUOTED_MAX = 12;

/**
 * One short sentence for each of limit and depth the address gives but the
 * selectors do not offer (parseGraphParams uses the default instead), e.g.
 * 'Limit 99999 is not one of the options (100, 250, 500); showing 250.'
 */
export function graphParamNotices(search: URLSearchParams): string[] {
  const notices: string[] = [];
  const check = (
    key: 'limit' | 'depth',
    name: string,
    options: readonly number[],
    used: number,
    verb: string,
  ) => {
    const raw = search.get(key);
    if (raw === null || raw.trim() === '') return;
    if (/^\d+$/.test(raw) && options.includes(Number(raw))) return;
    notices.push(
      `${name} ${cutLabel(raw, QUOTED_MAX)} is not one of the options (${options.join(', ')}); ${verb} ${used}.`,
    );
  };
  const params = parseGraphParams(search);
  check('limit', 'Limit', LIMIT_OPTIONS, params.limit, 'showing');
  check('depth', 'Depth', DEPTH_OPTIONS, params.depth, 'using');
  return notices;
}

/** The address query for `params`, keeping any other parameters of `current`. */
export function graphSearch(params: GraphParams, current?: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(current);
  next.set('limit', String(params.limit));
  next.set('depth', String(params.depth));
  return next;
}
