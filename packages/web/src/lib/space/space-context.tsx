import { DEFAULT_SPACE_SLUG, SPACE_QUERY } from '@engram/shared';
import { createContext, use, useEffect, useState, type ReactNode } from 'react';
import { useLocation, useNavigate, useNavigationType, type To } from 'react-router';

/**
 * The memory space the signed-in app shows lives in the address
 * (`?space=<slug>`, absent: the default space), so a link or a reload stays
 * in it. This value in the address picks "All spaces", which only the
 * dashboard's counts honour: it is no slug (slugs have no `*`), and every
 * other screen reads it as the default space.
 */
export const ALL_SPACES = '*';

/** Marks a navigation that chose a space on purpose (the default one has no `?space=`). */
const CHOSEN_STATE = 'spaceChosen';

/**
 * The navigation state of a move to the default space on purpose (the
 * address names none, and the space shown before must not be carried over),
 * e.g. after switching account.
 */
export const DEFAULT_SPACE_CHOSEN = { [CHOSEN_STATE]: true } as const;

export interface SpaceValue {
  /** The slug every graph call sends (X-Engram-Space) and every graph query key holds. */
  slug: string;
  /** "All spaces" was chosen: the dashboard's counts are the whole account's. */
  allSpaces: boolean;
  /** Goes to the same screen in another space (a slug, or ALL_SPACES); from one entity's page, to the list. */
  choose: (slug: string) => void;
  /** `to` with the current space's `?space=` (for links that should stay in it). */
  linkTo: (to: string) => To;
}

const SpaceContext = createContext<SpaceValue | null>(null);

/** `search` (with or without its '?') with `space` set, or without it for the default space. */
export function searchWithSpace(search: string, space: string | null): string {
  const params = new URLSearchParams(search);
  if (space && space !== DEFAULT_SPACE_SLUG) params.set(SPACE_QUERY, space);
  else params.delete(SPACE_QUERY);
  const text = params.toString();
  return text ? `?${text}` : '';
}

function chosenOnPurpose(state: unknown): boolean {
  return typeof state === 'object' && state !== null && CHOSEN_STATE in state;
}

/**
 * Holds the space for the signed-in shell. A screen's own links ('/entities',
 * a card's '/entities/:id') name no space: a move made in the app (a link, a
 * redirect) keeps the one being shown and writes it back into the address;
 * opening an address (a reload, back and forward) takes the space it names.
 */
export function SpaceProvider({ children }: { children: ReactNode }) {
  const location = useLocation();
  const navigationType = useNavigationType();
  const navigate = useNavigate();
  const named = new URLSearchParams(location.search).get(SPACE_QUERY);

  // The space shown before this location: kept across a move that names none.
  const [carried, setCarried] = useState<string | null>(named);
  const kept =
    named === null && navigationType !== 'POP' && !chosenOnPurpose(location.state) ? carried : null;
  const current = named ?? kept;
  if (current !== carried) setCarried(current);

  useEffect(() => {
    if (kept === null || kept === DEFAULT_SPACE_SLUG) return;
    void navigate(
      {
        pathname: location.pathname,
        search: searchWithSpace(location.search, kept),
        hash: location.hash,
      },
      { replace: true, state: location.state as unknown },
    );
  }, [kept, location, navigate]);

  const value = current ?? DEFAULT_SPACE_SLUG;
  const allSpaces = value === ALL_SPACES;
  const space: SpaceValue = {
    slug: allSpaces ? DEFAULT_SPACE_SLUG : value,
    allSpaces,
    choose: (slug) => {
      // An entity belongs to one space: in another, its page would only say "Entity not found".
      const onOneEntity = /^\/entities\/[^/]+/.test(location.pathname);
      void navigate(
        {
          pathname: onOneEntity ? '/entities' : location.pathname,
          search: searchWithSpace(onOneEntity ? '' : location.search, slug),
          hash: location.hash,
        },
        { state: { [CHOSEN_STATE]: true } },
      );
    },
    linkTo: (to) => {
      const url = new URL(to, 'http://app.invalid');
      return {
        pathname: url.pathname,
        search: searchWithSpace(url.search, value),
        hash: url.hash,
      };
    },
  };
  return <SpaceContext value={space}>{children}</SpaceContext>;
}

const OUTSIDE: SpaceValue = {
  slug: DEFAULT_SPACE_SLUG,
  allSpaces: false,
  choose: () => undefined,
  linkTo: (to) => to,
};

/** The shown space; outside the signed-in shell (and in screens' own tests), the default one. */
export function useSpace(): SpaceValue {
  return use(SpaceContext) ?? OUTSIDE;
}

/** The slug graph calls and query keys use. */
export function useSpaceSlug(): string {
  return useSpace().slug;
}
