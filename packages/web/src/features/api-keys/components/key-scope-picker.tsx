import type { Access } from '@engram/shared';
import { X } from 'lucide-react';
import { useId } from 'react';
import { SpaceSearchList } from '@/components/space-search-list';
import { FieldMessage } from '@/components/ui/form-field';
import type { ScopeChoice, ScopeReach } from '../key-scope';

interface KeyScopePickerProps {
  value: ScopeChoice;
  onChange: (next: ScopeChoice) => void;
  /** Why the choice cannot be sent (no space picked), once the person tried. */
  error?: string | null | undefined;
}

const RADIO = 'size-4 accent-[var(--color-primary)]';

/**
 * What a new key may touch: every space or the ones picked (searched on the
 * server by slug or name, a page at a time), read only or read and write.
 */
export function KeyScopePicker({ value, onChange, error }: KeyScopePickerProps) {
  const errorId = useId();
  return (
    <div className="grid gap-3">
      <fieldset className="grid gap-2" aria-describedby={error ? errorId : undefined}>
        <legend className="mb-2 text-sm font-medium">Access</legend>
        <div className="flex flex-wrap gap-x-5 gap-y-2">
          {(
            [
              ['all', 'All spaces'],
              ['chosen', 'Chosen spaces'],
            ] as [ScopeReach, string][]
          ).map(([reach, label]) => (
            <label key={reach} className="inline-flex cursor-pointer items-center gap-2 text-sm">
              <input
                type="radio"
                name="key-reach"
                className={RADIO}
                checked={value.reach === reach}
                onChange={() => onChange({ ...value, reach })}
              />
              {label}
            </label>
          ))}
        </div>
        {value.reach === 'chosen' ? (
          <SpaceChoices
            slugs={value.slugs}
            onChange={(slugs) => onChange({ ...value, slugs })}
            invalid={Boolean(error)}
          />
        ) : null}
        <FieldMessage id={errorId} message={error} />
      </fieldset>
      <fieldset className="grid gap-2">
        <legend className="sr-only">Permission</legend>
        <div className="flex flex-wrap gap-x-5 gap-y-2">
          {(
            [
              ['read', 'Read only'],
              ['write', 'Read and write'],
            ] as [Access, string][]
          ).map(([access, label]) => (
            <label key={access} className="inline-flex cursor-pointer items-center gap-2 text-sm">
              <input
                type="radio"
                name="key-access"
                className={RADIO}
                checked={value.access === access}
                onChange={() => onChange({ ...value, access })}
              />
              {label}
            </label>
          ))}
        </div>
      </fieldset>
    </div>
  );
}

/** The picked spaces as removable chips, and a searchable list of checkboxes to pick more. */
function SpaceChoices({
  slugs,
  onChange,
  invalid,
}: {
  slugs: readonly string[];
  onChange: (slugs: string[]) => void;
  invalid: boolean;
}) {
  const picked = new Set(slugs);

  function toggle(slug: string) {
    onChange(picked.has(slug) ? slugs.filter((s) => s !== slug) : [...slugs, slug]);
  }

  return (
    <SpaceSearchList
      type="checkbox"
      isPicked={(slug) => picked.has(slug)}
      onPick={toggle}
      invalid={invalid}
    >
      {slugs.length ? (
        <ul aria-label="Chosen spaces" className="flex flex-wrap gap-1.5">
          {slugs.map((slug) => (
            <li
              key={slug}
              className="inline-flex items-center gap-1 rounded-md border border-border bg-muted py-0.5 pr-0.5 pl-2 font-mono text-xs"
            >
              {slug}
              <button
                type="button"
                aria-label={`Remove ${slug}`}
                className="inline-flex size-5 cursor-pointer items-center justify-center rounded text-muted-foreground outline-none hover:bg-border hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring"
                onClick={() => toggle(slug)}
              >
                <X className="size-3" aria-hidden />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </SpaceSearchList>
  );
}
