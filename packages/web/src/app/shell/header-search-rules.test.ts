import { describe, expect, it } from 'vitest';
import { isSearchShortcut, takesText } from './header-search-rules';

const key = (overrides: Partial<KeyboardEvent> = {}) => ({
  key: '/',
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  defaultPrevented: false,
  ...overrides,
});

function element(html: string): Element {
  const host = document.createElement('div');
  host.innerHTML = html;
  document.body.append(host);
  return host.firstElementChild!;
}

describe('the / shortcut to the header search', () => {
  it('is a character in text fields: inputs, textareas, selects, editable content', () => {
    expect(takesText(element('<input type="text">'))).toBe(true);
    expect(takesText(element('<input type="search">'))).toBe(true);
    expect(takesText(element('<input>'))).toBe(true);
    expect(takesText(element('<textarea></textarea>'))).toBe(true);
    expect(takesText(element('<select></select>'))).toBe(true);
    expect(takesText(element('<div contenteditable="true"></div>'))).toBe(true);
    expect(takesText(element('<div contenteditable="true"><b>x</b></div>').firstElementChild)).toBe(
      true,
    );
  });

  it('focuses the field from anywhere else', () => {
    expect(takesText(null)).toBe(false);
    expect(takesText(document.body)).toBe(false);
    expect(takesText(element('<button>Go</button>'))).toBe(false);
    expect(takesText(element('<input type="checkbox">'))).toBe(false);
    expect(takesText(element('<div contenteditable="false"></div>'))).toBe(false);
    expect(isSearchShortcut(key(), document.body)).toBe(true);
    expect(isSearchShortcut(key(), element('<input>'))).toBe(false);
  });

  it('is only a bare /', () => {
    expect(isSearchShortcut(key({ key: '?' }), document.body)).toBe(false);
    expect(isSearchShortcut(key({ ctrlKey: true }), document.body)).toBe(false);
    expect(isSearchShortcut(key({ metaKey: true }), document.body)).toBe(false);
    expect(isSearchShortcut(key({ altKey: true }), document.body)).toBe(false);
    expect(isSearchShortcut(key({ defaultPrevented: true }), document.body)).toBe(false);
  });
});
