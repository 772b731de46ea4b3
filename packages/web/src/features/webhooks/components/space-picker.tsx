import { useId } from 'react';
import { SpaceSearchList } from '@/components/space-search-list';
import { FieldMessage } from '@/components/ui/form-field';

const RADIO = 'size-4 accent-[var(--color-primary)]';

interface SpacePickerProps {
  /** The one space heard (its slug), or null for every space. */
  value: string | null;
  /** Whether "One space" is chosen (then `value` may still be null: none picked yet). */
  oneSpace: boolean;
  onChange: (next: { oneSpace: boolean; value: string | null }) => void;
  error?: string | undefined;
}

/**
 * Whose events the endpoint hears: every space's (the default, spaces made
 * later too) or one space's, searched on the server by slug or name a page at
 * a time, as an account may hold thousands.
 */
export function SpacePicker({ value, oneSpace, onChange, error }: SpacePickerProps) {
  const errorId = useId();
  const name = useId();
  return (
    <fieldset className="grid gap-2" aria-describedby={error ? errorId : undefined}>
      <legend className="mb-2 text-sm font-medium">Spaces</legend>
      <div className="flex flex-wrap gap-x-5 gap-y-2">
        {(
          [
            [false, 'All spaces'],
            [true, 'One space'],
          ] as const
        ).map(([one, label]) => (
          <label key={label} className="inline-flex cursor-pointer items-center gap-2 text-sm">
            <input
              type="radio"
              name={`${name}-reach`}
              className={RADIO}
              checked={oneSpace === one}
              onChange={() => onChange({ oneSpace: one, value })}
            />
            {label}
          </label>
        ))}
      </div>
      {oneSpace ? (
        <SpaceSearchList
          type="radio"
          isPicked={(slug) => slug === value}
          onPick={(slug) => onChange({ oneSpace, value: slug })}
          invalid={Boolean(error)}
          listClassName="max-h-40"
        />
      ) : null}
      <FieldMessage id={errorId} message={error} />
    </fieldset>
  );
}
