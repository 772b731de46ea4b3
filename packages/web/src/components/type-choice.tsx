import { useRef, type ReactNode, type Ref, type RefObject } from 'react';
import { TypePicker, type TypePagesQuery, type TypePickerOption } from '@/components/type-picker';
import { Input } from '@/components/ui/input';

/** Option values: types are prefixed so no type name can pose as 'Custom Type...'. */
const CUSTOM_CHOICE = 'custom-type';
const CUSTOM_OPTIONS = [{ value: CUSTOM_CHOICE, label: 'Custom Type...' }];
const typeChoice = (type: string) => `type:${type}`;

/** The field's value: a type of the list, or the text typed after 'Custom Type...'. */
export interface TypeChoiceValue {
  /** The type chosen from the list; '' while nothing is chosen. */
  type: string;
  /** The typed type once 'Custom Type...' is chosen; null while the list is used. */
  customType: string | null;
}

interface TypeChoiceProps extends TypeChoiceValue {
  id: string;
  ref: Ref<HTMLButtonElement>;
  /** The text box 'Custom Type...' reveals, for the form to focus. */
  customRef: RefObject<HTMLInputElement | null>;
  placeholder: string;
  /** The accessible name of the search box in the open list. */
  searchLabel: string;
  pages: TypePagesQuery;
  /** The types to offer, given the account's types loaded so far (most used first) and the search they answer. */
  choices: (accountTypes: string[], prefix: string) => string[];
  /** How a type reads, in the list and (`display`) in the closed picker. */
  option: (type: string) => Omit<TypePickerOption, 'value'>;
  display: (type: string) => ReactNode;
  /** The accessible name and placeholder of the text box 'Custom Type...' reveals. */
  customLabel: string;
  customPlaceholder: string;
  /** The id of the field's error message, while there is one. */
  errorId: string | undefined;
  onChange: (value: TypeChoiceValue) => void;
}

/**
 * A form's type (docs/product.md, Forms: the entity and relation forms): one
 * of the account's types or the suggested ones in the type picker, or any
 * other typed after 'Custom Type...' — which starts from the text searched
 * for and takes the focus.
 */
export function TypeChoice({
  id,
  ref,
  customRef,
  type,
  customType,
  placeholder,
  searchLabel,
  pages,
  choices,
  option,
  display,
  customLabel,
  customPlaceholder,
  errorId,
  onChange,
}: TypeChoiceProps) {
  const custom = customType !== null;
  const focusCustomOnClose = useRef(false);

  return (
    <>
      <TypePicker
        ref={ref}
        id={id}
        value={custom ? CUSTOM_CHOICE : type ? typeChoice(type) : null}
        display={custom ? 'Custom Type...' : type ? display(type) : null}
        placeholder={placeholder}
        searchLabel={searchLabel}
        pages={pages}
        optionsFor={(types, prefix) =>
          choices(
            types.map((summary) => summary.type),
            prefix,
          ).map((choice) => ({ value: typeChoice(choice), ...option(choice) }))
        }
        trailing={CUSTOM_OPTIONS}
        invalid={Boolean(errorId) && !custom}
        describedBy={custom ? undefined : errorId}
        onChange={(choice, search) => {
          if (choice === CUSTOM_CHOICE) {
            // What was typed in the search becomes the custom type's first draft.
            onChange({ type, customType: customType ?? search });
            focusCustomOnClose.current = true;
          } else {
            onChange({ type: choice.slice('type:'.length), customType: null });
          }
        }}
        onCloseAutoFocus={(event) => {
          // Choosing 'Custom Type...' moves on to the text box it reveals.
          if (!focusCustomOnClose.current) return;
          focusCustomOnClose.current = false;
          event.preventDefault();
          customRef.current?.focus();
        }}
      />
      {custom ? (
        <Input
          ref={customRef}
          aria-label={customLabel}
          placeholder={customPlaceholder}
          autoComplete="off"
          maxLength={100}
          value={customType}
          aria-invalid={errorId ? true : undefined}
          aria-describedby={errorId}
          onChange={(event) => onChange({ type, customType: event.target.value })}
        />
      ) : null}
    </>
  );
}
