import type { KeyboardEvent } from 'react';
import { cn } from '@/lib/cn';

export type EntityTab = 'overview' | 'history';

const ENTITY_TABS: { value: EntityTab; label: string }[] = [
  { value: 'overview', label: 'Overview' },
  { value: 'history', label: 'History' },
];

/** The tab the address names (?tab=history); Overview otherwise. */
export function entityTabOf(search: URLSearchParams): EntityTab {
  return search.get('tab') === 'history' ? 'history' : 'overview';
}

/** Overview (the graph, relations, observations) and History (docs/history.md), as a tab bar under the title. */
export function EntityTabs({
  tab,
  onChange,
}: {
  tab: EntityTab;
  onChange: (tab: EntityTab) => void;
}) {
  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    event.preventDefault();
    const index = ENTITY_TABS.findIndex((item) => item.value === tab);
    const step = event.key === 'ArrowRight' ? 1 : -1;
    const next = ENTITY_TABS[(index + step + ENTITY_TABS.length) % ENTITY_TABS.length]!;
    onChange(next.value);
    document.getElementById(`entity-tab-${next.value}-tab`)?.focus();
  }
  return (
    <div
      role="tablist"
      aria-label="Entity sections"
      className="-mb-2 flex gap-1 overflow-x-auto border-b border-border"
      onKeyDown={onKeyDown}
    >
      {ENTITY_TABS.map(({ value, label }) => {
        const active = value === tab;
        return (
          <button
            key={value}
            type="button"
            role="tab"
            id={`entity-tab-${value}-tab`}
            aria-selected={active}
            aria-controls={`entity-tab-${value}`}
            tabIndex={active ? 0 : -1}
            onClick={() => onChange(value)}
            className={cn(
              '-mb-px inline-flex h-9 cursor-pointer items-center border-b-2 px-3 text-sm font-medium whitespace-nowrap outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-inset',
              active
                ? 'border-primary text-foreground'
                : 'border-transparent text-muted-foreground hover:text-foreground',
            )}
          >
            {label}
          </button>
        );
      })}
    </div>
  );
}
