/**
 * Whether typing goes into `element` (a text input, a textarea, a select or
 * editable content): then `/` is a character, not the shortcut to the
 * header's search field.
 */
export function takesText(element: Element | null): boolean {
  if (!element) return false;
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  if (element instanceof HTMLInputElement) {
    return !NOT_TEXT.has(element.type);
  }
  if (!(element instanceof HTMLElement)) return false;
  return (
    element.isContentEditable ||
    element.closest('[contenteditable]:not([contenteditable="false"])') !== null
  );
}

const NOT_TEXT = new Set([
  'button',
  'checkbox',
  'color',
  'file',
  'hidden',
  'image',
  'radio',
  'range',
  'reset',
  'submit',
]);

/** The `/` that should focus the search field: no modifier, not typed into a text field. */
export function isSearchShortcut(
  event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'defaultPrevented'>,
  focused: Element | null,
): boolean {
  if (event.key !== '/' || event.defaultPrevented) return false;
  if (event.ctrlKey || event.metaKey || event.altKey) return false;
  return !takesText(focused);
}
