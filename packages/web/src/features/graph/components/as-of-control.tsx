import { History } from 'lucide-react';
import { useId, useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { pluralize } from '@/lib/format';
import {
  asOfLabel,
  fromLocalInput,
  SLIDER_STEPS,
  sliderPositionOf,
  sliderToIso,
  toLocalInput,
} from '../as-of-model';

/**
 * The Graph view's "As of" control (docs/history.md): a slider over the
 * history the plan keeps — its oldest hour at the left, now at the right —
 * and a date-time field for an exact moment. Both choose `asOf`; null is now.
 */
export function AsOfControl({
  asOf,
  days,
  error,
  onChange,
}: {
  asOf: string | null;
  /** Days of history kept (the plan's changeLogRetentionDays). */
  days: number;
  /** The server's refusal of this time (e.g. before the history kept), shown under the control. */
  error: string | null;
  onChange: (asOf: string | null) => void;
}) {
  const sliderId = useId();
  const fieldId = useId();
  // The moment the control opened: the slider's right end. Re-mounted (keyed) when asOf changes.
  const [now] = useState(() => Date.now());
  const committed = asOf === null ? SLIDER_STEPS : sliderPositionOf(asOf, days, now);
  const [position, setPosition] = useState(committed);
  const moved = position !== committed;
  const draftIso = sliderToIso(position, days, now);

  /** The slider was let go (pointer or keys): the graph follows. */
  function commit() {
    if (moved) onChange(draftIso);
  }

  function pick(value: string) {
    const iso = fromLocalInput(value);
    if (iso === null) return;
    onChange(Date.parse(iso) >= Date.now() ? null : iso);
  }

  // The field shows the moment chosen, or the one the slider is being dragged to.
  const shown = moved ? draftIso : asOf;
  return (
    <div className="grid gap-2 border-t border-border px-4 py-3" data-testid="as-of-control">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <label
          htmlFor={sliderId}
          className="flex shrink-0 items-center gap-1.5 text-sm font-medium"
        >
          <History className="size-4 text-muted-foreground" aria-hidden />
          As of
        </label>
        <div className="grid min-w-48 flex-1 gap-0.5">
          <input
            id={sliderId}
            type="range"
            min={0}
            max={SLIDER_STEPS}
            step={1}
            value={position}
            onChange={(event) => setPosition(Number(event.target.value))}
            onPointerUp={commit}
            onKeyUp={commit}
            onBlur={commit}
            aria-valuetext={draftIso === null ? 'Now' : asOfLabel(draftIso)}
            className="h-5 w-full cursor-pointer accent-primary"
          />
          <div className="flex justify-between text-[11px] text-muted-foreground">
            <span>{pluralize(days, 'day')} ago</span>
            <span>Now</span>
          </div>
        </div>
        <label htmlFor={fieldId} className="sr-only">
          Date and time
        </label>
        <Input
          id={fieldId}
          type="datetime-local"
          className="w-full sm:w-52"
          value={shown === null ? '' : toLocalInput(shown)}
          min={toLocalInput(sliderToIso(0, days, now)!)}
          max={toLocalInput(new Date(now).toISOString())}
          onChange={(event) => pick(event.target.value)}
        />
      </div>
      {error ? (
        <Alert variant="error" data-testid="as-of-error">
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
            <span className="wrap-anywhere">{error}</span>
            <button
              type="button"
              className="cursor-pointer font-medium underline underline-offset-4"
              onClick={() => onChange(null)}
            >
              Back to now
            </button>
          </div>
        </Alert>
      ) : null}
    </div>
  );
}

/** Over the canvas while it shows the past: which moment, and the way back. */
export function PastBanner({ asOf, onBackToNow }: { asOf: string; onBackToNow: () => void }) {
  return (
    <div
      role="status"
      className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 border-t border-border bg-warning-soft px-4 py-2 text-sm text-warning-soft-foreground"
    >
      <span className="flex min-w-0 items-center gap-1.5">
        <History className="size-4 shrink-0" aria-hidden />
        <span>
          Showing the graph as of <strong className="font-medium">{asOfLabel(asOf)}</strong>
          <span className="text-warning-soft-foreground/80"> · live updates paused</span>
        </span>
      </span>
      <Button size="sm" variant="outline" onClick={onBackToNow}>
        Back to now
      </Button>
    </div>
  );
}
