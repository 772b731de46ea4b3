/**
 * The memory space the signed-in app shows (issue 36): kept in the address,
 * sent with every graph call, part of every graph query key.
 */
export {
  ALL_SPACES,
  DEFAULT_SPACE_CHOSEN,
  searchWithSpace,
  SpaceProvider,
  useSpace,
  useSpaceSlug,
  type SpaceValue,
} from './space-context';
