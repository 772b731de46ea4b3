import { entityTypeColor, typeLabel } from '@engram/shared';

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | EventListener>;

/** An element with its attributes (`on…` are listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      element.addEventListener(key.slice(2), value);
    } else if (value === true) {
      element.setAttribute(key, '');
    } else {
      element.setAttribute(key, String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'object' ? child : String(child));
  }
  return element;
}

/** The type's chip in its colour, as the web app shows it. */
export function typeChip(type: string): HTMLElement {
  return h(
    'span',
    { class: 'chip', title: type },
    h('span', { class: 'dot', style: `background:${entityTypeColor(type)}` }),
    typeLabel(type),
  );
}

/** A short date and time in the reader's locale. */
export function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A line saying something went wrong or was cut, in place of `into`'s former notice. */
export function notice(into: HTMLElement, text: string | undefined, kind = 'note'): void {
  into.querySelector(':scope > .notice')?.remove();
  if (text) into.prepend(h('p', { class: `notice ${kind}`, role: 'status' }, text));
}

/**
 * Asks the person before a write, inside the view (a host's frame may not
 * allow `confirm()`). Resolves true when they confirm.
 */
export function ask(question: string, detail: string, confirm: string): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (answer: boolean) => {
      overlay.remove();
      resolve(answer);
    };
    const confirmButton = h('button', { class: 'primary', onclick: () => done(true) }, confirm);
    const overlay = h(
      'div',
      {
        class: 'overlay',
        onkeydown: ((event: KeyboardEvent) => {
          if (event.key === 'Escape') done(false);
        }) as EventListener,
      },
      h(
        'div',
        { class: 'dialog', role: 'alertdialog', 'aria-modal': 'true', 'aria-label': question },
        h('h2', {}, question),
        h('p', {}, detail),
        h(
          'div',
          { class: 'actions' },
          h('button', { onclick: () => done(false) }, 'Cancel'),
          confirmButton,
        ),
      ),
    );
    document.body.append(overlay);
    confirmButton.focus();
  });
}

/** Disables a write button when the connection may not write, saying why. */
export function gate(
  button: HTMLButtonElement,
  access: { canWrite: boolean; reason: string | null },
) {
  if (access.canWrite) return button;
  button.disabled = true;
  button.title = access.reason ?? 'This connection may only read.';
  return button;
}

/** Replaces `element`'s children, skipping the absent ones. */
export function fill(element: Element, ...children: Child[]): void {
  element.replaceChildren(
    ...children
      .filter((child) => child !== null && child !== undefined && child !== false)
      .map((child) => (typeof child === 'object' ? child : String(child))),
  );
}
