import { WEBHOOK_EVENT_TYPES } from '@engram/shared';
import { useId } from 'react';
import { FieldMessage } from '@/components/ui/form-field';

const CHECKBOX = 'size-4 accent-[var(--color-primary)]';

interface EventsPickerProps {
  /** Every event, now and later (`*`). */
  all: boolean;
  picked: readonly string[];
  onChange: (next: { all: boolean; picked: string[] }) => void;
  error?: string | undefined;
}

/** Which graph events the endpoint hears: all of them (the default), or the ones ticked. */
export function EventsPicker({ all, picked, onChange, error }: EventsPickerProps) {
  const errorId = useId();
  const chosen = new Set(picked);
  return (
    <fieldset className="grid gap-2" aria-describedby={error ? errorId : undefined}>
      <legend className="mb-2 text-sm font-medium">Events</legend>
      <label className="inline-flex cursor-pointer items-center gap-2 text-sm">
        <input
          type="checkbox"
          className={CHECKBOX}
          checked={all}
          onChange={(event) => onChange({ all: event.target.checked, picked: [...picked] })}
        />
        All events
        <span className="text-xs text-muted-foreground">(and types added later)</span>
      </label>
      {all ? null : (
        <ul
          aria-label="Event types"
          className="grid grid-cols-1 gap-x-4 gap-y-1.5 rounded-lg border border-border p-3 sm:grid-cols-2"
        >
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <li key={type}>
              <label className="inline-flex cursor-pointer items-center gap-2">
                <input
                  type="checkbox"
                  className={CHECKBOX}
                  checked={chosen.has(type)}
                  onChange={() =>
                    onChange({
                      all,
                      picked: chosen.has(type)
                        ? picked.filter((name) => name !== type)
                        : [...picked, type],
                    })
                  }
                />
                <span className="font-mono text-xs">{type}</span>
              </label>
            </li>
          ))}
        </ul>
      )}
      <FieldMessage id={errorId} message={error} />
    </fieldset>
  );
}
