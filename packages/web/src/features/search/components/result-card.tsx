import type { RecallResult } from '@engram/shared';
import { Link } from 'react-router';
import { EntityTypeBadge } from '@/components/entity-type-badge';
import { cn } from '@/lib/cn';
import { resultDate } from '../time-filter';
import { HighlightedText } from './highlighted-text';

interface ResultCardProps {
  /** The element id the query box points at (aria-activedescendant) when this result is active. */
  id: string;
  result: RecallResult;
  words: readonly string[];
  /** Chosen with the arrow keys: Enter opens its entity. */
  active: boolean;
}

/**
 * One remembered observation: its text with the question's words marked,
 * then the entity it belongs to (a link to the entity's page, its type) and
 * its date: when the fact held, as its writer said (a day, or a span), else
 * when it was noted.
 */
export function ResultCard({ id, result, words, active }: ResultCardProps) {
  const textId = `${id}-text`;
  const aboutId = `${id}-about`;
  const date = resultDate(result);
  return (
    <article
      id={id}
      aria-labelledby={textId}
      aria-describedby={aboutId}
      data-active={active || undefined}
      className={cn(
        'grid min-w-0 gap-2.5 rounded-lg border border-border bg-card p-4 shadow-xs transition-colors',
        active
          ? 'border-ring bg-primary-soft/40 ring-2 ring-ring/25'
          : 'hover:border-zinc-300 dark:hover:border-zinc-600',
      )}
    >
      <p id={textId} className="text-sm leading-6 wrap-anywhere whitespace-pre-line">
        <HighlightedText text={result.observation} words={words} />
      </p>
      <div
        id={aboutId}
        className="flex min-w-0 flex-wrap items-center gap-x-2.5 gap-y-1.5 text-xs text-muted-foreground"
      >
        <Link
          to={`/entities/${encodeURIComponent(result.entityId)}`}
          className="min-w-0 truncate text-sm font-medium text-foreground underline-offset-4 outline-none hover:text-primary hover:underline focus-visible:underline"
        >
          {result.entityName}
        </Link>
        <EntityTypeBadge type={result.entityType} className="max-w-[60%]" />
        <span
          title={date.kind === 'fact' ? 'When this held' : 'When this was noted'}
          className="ml-auto shrink-0 tabular-nums"
        >
          {date.lead ? `${date.lead} ` : null}
          {date.dates.map((day, index) => (
            <span key={day.iso}>
              {index > 0 ? ' – ' : null}
              <time dateTime={day.iso}>{day.text}</time>
            </span>
          ))}
        </span>
      </div>
    </article>
  );
}
