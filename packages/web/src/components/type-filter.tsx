import type { TypeSummary } from '@engram/shared';
import type { ReactNode } from 'react';
import { TypePicker, type TypePagesQuery } from '@/components/type-picker';
import { formatCount } from '@/lib/format';

const ALL_TYPES = 'all';
const ALL_TYPES_OPTIONS = [{ value: ALL_TYPES, label: 'All Types' }];
/** Option values: types are prefixed so no type name can pose as 'All Types'. */
const typeChoice = (type: string) => `type:${type}`;

/** 'Person (1,666)': a type with how many the account has. */
export const typeWithCount = (summary: TypeSummary) =>
  `${summary.label} (${formatCount(summary.count)})`;

interface TypeFilterProps {
  /** The closed filter's accessible name, e.g. 'Entity type'. */
  label: string;
  /** The search box's accessible name, e.g. 'Search entity types'. */
  searchLabel: string;
  pages: TypePagesQuery;
  /** The chosen type; null for all types. */
  type: string | null;
  /** What the closed filter shows for the chosen type. */
  display: ReactNode;
  /** The types loaded so far as options: the type and its text. */
  options: (types: TypeSummary[]) => { type: string; label: string }[];
  /** The chosen type, or null for 'All Types'. */
  onChange: (type: string | null) => void;
}

/** A list screen's type filter: 'All Types', then the account's types, most common first. */
export function TypeFilter({
  label,
  searchLabel,
  pages,
  type,
  display,
  options,
  onChange,
}: TypeFilterProps) {
  return (
    <TypePicker
      label={label}
      value={type ? typeChoice(type) : ALL_TYPES}
      display={type ? display : 'All Types'}
      placeholder="All Types"
      searchLabel={searchLabel}
      pages={pages}
      leading={ALL_TYPES_OPTIONS}
      optionsFor={(types) =>
        options(types).map((option) => ({ value: typeChoice(option.type), label: option.label }))
      }
      onChange={(choice) => onChange(choice === ALL_TYPES ? null : choice.slice('type:'.length))}
    />
  );
}
