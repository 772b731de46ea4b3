import { useId, useRef, useState, type ChangeEvent } from 'react';

interface PickerListOptions<T> {
  options: readonly T[];
  /** Shown but not pickable (the entity picked on the other side of a relation). */
  blocked?: (option: T) => boolean;
  /** The options still answer an earlier text: Enter would pick the wrong one, so it waits. */
  stale: boolean;
  onPick: (option: T) => void;
}

/**
 * The keyboard and pointer of an open picker's list (the type picker, the
 * relation form's entity picker): one option highlighted — the one moved
 * to, else the first that can be picked — arrow keys moving through the
 * pickable ones and wrapping, Enter and a click picking. Spread `search`
 * on the `PickerSearch`, `list` on the listbox and `option(index)` on each
 * `PickerOption`.
 */
export function usePickerList<T>({ options, blocked, stale, onPick }: PickerListOptions<T>) {
  const [active, setActive] = useState(0);
  const listId = useId();
  const listRef = useRef<HTMLUListElement>(null);

  const pickable = (index: number) =>
    index >= 0 && index < options.length && !blocked?.(options[index]!);
  const current = pickable(active) ? active : options.findIndex((_, index) => pickable(index));
  const optionId = (index: number) => `${listId}-${index}`;

  function pick(index: number) {
    if (pickable(index)) onPick(options[index]!);
  }

  function move(step: 1 | -1) {
    if (!options.length) return;
    let next = current < 0 ? active : current;
    for (let tries = 0; tries < options.length; tries++) {
      next = (next + step + options.length) % options.length;
      if (pickable(next)) break;
    }
    setActive(next);
    listRef.current
      ?.querySelector(`[data-index="${next}"]`)
      ?.scrollIntoView?.({ block: 'nearest' });
  }

  function enter() {
    if (!stale) pick(current);
  }

  return {
    /** Back to the first option, as the search text changes. */
    restart: () => setActive(0),
    /** The search box's onChange: keeps the text (`setText`) and goes back to the first option. */
    typed: (setText: (text: string) => void) => (event: ChangeEvent<HTMLInputElement>) => {
      setText(event.target.value);
      setActive(0);
    },
    search: {
      listId,
      onMove: move,
      onEnter: enter,
      'aria-activedescendant': current >= 0 ? optionId(current) : undefined,
    },
    list: { ref: listRef, id: listId, role: 'listbox' as const },
    option: (index: number) => ({
      id: optionId(index),
      'data-index': index,
      active: index === current,
      onMouseMove: () => {
        if (pickable(index)) setActive(index);
      },
      onClick: () => pick(index),
    }),
  };
}
