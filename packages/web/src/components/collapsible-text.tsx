import { useId, useState } from 'react';
import { cn } from '@/lib/cn';

/** Longer than this, a text (an observation) shows collapsed at first. */
export const COLLAPSE_OVER_CHARS = 600;

/** Whether `text` starts collapsed. */
export function isLongText(text: string, limit = COLLAPSE_OVER_CHARS): boolean {
  return text.length > limit;
}

interface CollapsibleTextProps {
  text: string;
  className?: string;
  /** Collapse texts longer than this many characters. */
  limit?: number;
}

/**
 * A text that may be long (an observation of thousands of characters): past
 * `limit` characters it shows its first lines with "Show more", and "Show
 * less" folds it again. Short texts show whole, with no button.
 */
export function CollapsibleText({
  text,
  className,
  limit = COLLAPSE_OVER_CHARS,
}: CollapsibleTextProps) {
  const id = useId();
  const [expanded, setExpanded] = useState(false);
  const long = isLongText(text, limit);
  const collapsed = long && !expanded;
  return (
    <>
      <p
        id={id}
        data-collapsed={collapsed ? '' : undefined}
        className={cn('wrap-anywhere whitespace-pre-wrap', collapsed && 'line-clamp-6', className)}
      >
        {text}
      </p>
      {long ? (
        <button
          type="button"
          aria-expanded={expanded}
          aria-controls={id}
          onClick={() => setExpanded((open) => !open)}
          className="mt-1 cursor-pointer rounded-sm text-xs font-medium text-primary outline-none hover:underline focus-visible:ring-2 focus-visible:ring-ring"
        >
          {expanded ? 'Show less' : 'Show more'}
        </button>
      ) : null}
    </>
  );
}
