import { Toaster as Sonner } from 'sonner';

/**
 * Toast notices: top right, gone after 5 seconds (docs/product.md, The signed-in app; Numbers).
 *
 * Below the header (h-14), never over its connection badge, user menu or,
 * on a phone, its menu button; aligned with the header's side padding. A
 * toast lets clicks through to what it covers (a page's own buttons sit just
 * below the header): only its close button takes the pointer. That also
 * keeps sonner's pause-on-hover from holding a toast on screen while the
 * pointer merely passes over it, so every toast goes after its 5 seconds.
 */
export const TOAST_OFFSET = { top: 68, right: 24 } as const;
export const TOAST_MOBILE_OFFSET = { top: 64, right: 16, left: 16 } as const;

export function Toaster() {
  return (
    <Sonner
      position="top-right"
      duration={5000}
      theme="system"
      richColors
      closeButton
      offset={TOAST_OFFSET}
      mobileOffset={TOAST_MOBILE_OFFSET}
      className="pointer-events-none"
      toastOptions={{
        className: 'font-sans',
        classNames: { toast: 'pointer-events-none', closeButton: 'pointer-events-auto' },
      }}
    />
  );
}
