import { useId, useState } from 'react';
import { Input } from '@/components/ui/input';
import { NativeSelect } from '@/components/ui/native-select';
import { cn } from '@/lib/cn';
import {
  dayOfBound,
  rangeIsBackwards,
  TIME_CHOICES,
  type TimeChoice,
  type TimeRange,
} from '../time-filter';

interface TimeFilterSelectProps {
  choice: TimeChoice;
  onChoose: (choice: TimeChoice) => void;
  className?: string;
}

/** Any time, a past week, month or year, or a range of one's own. */
export function TimeFilterSelect({ choice, onChoose, className }: TimeFilterSelectProps) {
  return (
    <NativeSelect
      aria-label="Time range"
      options={TIME_CHOICES}
      value={choice}
      onChange={(event) => onChoose(event.target.value as TimeChoice)}
      className={className}
    />
  );
}

interface CustomRangeFieldsProps {
  /** The range in the address. */
  range: TimeRange;
  /** A range to ask with: both ends days, in order (either may be open). */
  onRange: (range: TimeRange) => void;
  className?: string;
}

const rangeKey = (range: TimeRange) => `${range.since ?? ''}|${range.until ?? ''}`;

/**
 * The custom range's two days, From and To (both kept). A range that ends
 * before it starts is said so and not asked.
 */
export function CustomRangeFields({ range, onRange, className }: CustomRangeFieldsProps) {
  const [draft, setDraft] = useState(() => ({
    since: dayOfBound(range.since),
    until: dayOfBound(range.until),
  }));
  // A range changed elsewhere (Back, a link) replaces the days being edited.
  const [seen, setSeen] = useState(() => rangeKey(range));
  if (rangeKey(range) !== seen) {
    setSeen(rangeKey(range));
    setDraft({ since: dayOfBound(range.since), until: dayOfBound(range.until) });
  }
  const errorId = useId();
  const wanted: TimeRange = { since: draft.since || null, until: draft.until || null };
  const backwards = rangeIsBackwards(wanted);

  function change(end: 'since' | 'until', day: string) {
    const next = { ...draft, [end]: day };
    setDraft(next);
    const asked: TimeRange = { since: next.since || null, until: next.until || null };
    if (!rangeIsBackwards(asked)) onRange(asked);
  }

  return (
    <fieldset className={cn('grid min-w-0 gap-1.5', className)}>
      <legend className="sr-only">Custom range</legend>
      <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-2">
        <DayField
          label="From"
          value={draft.since}
          max={draft.until || undefined}
          invalid={backwards}
          errorId={backwards ? errorId : undefined}
          onChange={(day) => change('since', day)}
        />
        <DayField
          label="To"
          value={draft.until}
          min={draft.since || undefined}
          invalid={backwards}
          errorId={backwards ? errorId : undefined}
          onChange={(day) => change('until', day)}
        />
        <p className="text-xs text-muted-foreground">
          Both days included; leave one empty for an open end.
        </p>
      </div>
      {backwards ? (
        <p id={errorId} role="alert" className="text-xs text-destructive">
          The range ends before it starts: choose a To day on or after the From day.
        </p>
      ) : null}
    </fieldset>
  );
}

function DayField({
  label,
  value,
  min,
  max,
  invalid,
  errorId,
  onChange,
}: {
  label: string;
  value: string;
  min?: string | undefined;
  max?: string | undefined;
  invalid: boolean;
  errorId: string | undefined;
  onChange: (day: string) => void;
}) {
  const id = useId();
  return (
    <div className="flex min-w-0 items-center gap-2">
      <label htmlFor={id} className="w-9 text-xs font-medium text-muted-foreground sm:w-auto">
        {label}
      </label>
      <Input
        id={id}
        type="date"
        value={value}
        min={min}
        max={max}
        aria-invalid={invalid || undefined}
        aria-describedby={errorId}
        onChange={(event) => onChange(event.target.value)}
        className="h-8 w-[10.5rem] text-base tabular-nums sm:text-sm"
      />
    </div>
  );
}
