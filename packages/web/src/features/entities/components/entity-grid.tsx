import type { Entity } from '@engram/shared';
import { defaultRangeExtractor, useWindowVirtualizer, type Range } from '@tanstack/react-virtual';
import {
  useCallback,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type FocusEvent,
  type ReactNode,
} from 'react';
import { cn } from '@/lib/cn';

/** Cards per row: three from Tailwind's `lg`, two from `sm`, else one. */
const COLUMN_QUERIES = [
  { query: '(min-width: 64rem)', columns: 3 },
  { query: '(min-width: 40rem)', columns: 2 },
];
/**
 * A card's height without metadata: rows not yet measured are guessed at it.
 * A close guess matters: when a row above the screen is measured at another
 * height, the page's scroll is corrected, which stops a smooth scroll.
 */
const ROW_ESTIMATE = 110;
const ROW_GAP = 16;
/** Rows kept above and below the screen, so Tab and a quick scroll find cards ready. */
const OVERSCAN = 4;

function subscribeToWidth(onChange: () => void) {
  if (typeof window.matchMedia !== 'function') return () => undefined;
  const lists = COLUMN_QUERIES.map(({ query }) => window.matchMedia(query));
  for (const list of lists) list.addEventListener('change', onChange);
  return () => {
    for (const list of lists) list.removeEventListener('change', onChange);
  };
}

function currentColumns(): number {
  if (typeof window.matchMedia !== 'function') return 1;
  return COLUMN_QUERIES.find(({ query }) => window.matchMedia(query).matches)?.columns ?? 1;
}

const useColumns = () => useSyncExternalStore(subscribeToWidth, currentColumns, () => 1);

interface EntityGridProps {
  entities: Entity[];
  renderCard: (entity: Entity) => ReactNode;
  className?: string;
}

/**
 * The entity cards, one to three a row, with only the rows on screen (and a
 * few either side) in the page: 2,000 loaded cards scroll like 20. The page
 * scrolls as usual; each row is measured as it appears, so cards keep their
 * natural heights. A row holding keyboard focus stays in the page while it
 * is scrolled away, so focus is never dropped.
 */
export function EntityGrid({ entities, renderCard, className }: EntityGridProps) {
  const columns = useColumns();
  const rowCount = Math.ceil(entities.length / columns);
  const listRef = useRef<HTMLDivElement>(null);
  const focusedRow = useRef<number | null>(null);

  // Where the grid starts in the page: what lies above it can move it (a
  // filter card that wraps, fonts arriving), and any such change resizes the
  // page's body, so it is read again then.
  const [offset, setOffset] = useState(0);
  useLayoutEffect(() => {
    const measure = () => {
      const top = (listRef.current?.getBoundingClientRect().top ?? 0) + window.scrollY;
      setOffset((current) => (Math.abs(top - current) >= 1 ? top : current));
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, []);

  const rangeExtractor = useCallback((range: Range) => {
    const rows = defaultRangeExtractor(range);
    const focused = focusedRow.current;
    if (focused === null || focused >= range.count || rows.includes(focused)) return rows;
    return [...rows, focused].sort((a, b) => a - b);
  }, []);

  const virtualizer = useWindowVirtualizer({
    count: rowCount,
    estimateSize: () => ROW_ESTIMATE,
    gap: ROW_GAP,
    overscan: OVERSCAN,
    scrollMargin: offset,
    rangeExtractor,
    getItemKey: (index) => entities[index * columns]?.id ?? index,
    // React 19 warns when a ref callback (measuring a row) flushes synchronously.
    useFlushSync: false,
  });

  const rowOf = (target: EventTarget) =>
    target instanceof Element ? target.closest<HTMLElement>('[data-index]') : null;
  const onFocus = (event: FocusEvent) => {
    const row = rowOf(event.target);
    focusedRow.current = row ? Number(row.dataset.index) : null;
  };
  const onBlur = (event: FocusEvent) => {
    if (!event.relatedTarget || !listRef.current?.contains(event.relatedTarget as Node)) {
      focusedRow.current = null;
    }
  };

  return (
    <div
      ref={listRef}
      className={cn('relative', className)}
      style={{ height: virtualizer.getTotalSize() }}
      onFocus={onFocus}
      onBlur={onBlur}
    >
      {virtualizer.getVirtualItems().map((row) => (
        <div
          key={row.key}
          ref={virtualizer.measureElement}
          data-index={row.index}
          className="absolute top-0 left-0 grid w-full gap-4"
          style={{
            gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
            transform: `translateY(${row.start - virtualizer.options.scrollMargin}px)`,
          }}
        >
          {entities.slice(row.index * columns, (row.index + 1) * columns).map(renderCard)}
        </div>
      ))}
    </div>
  );
}
