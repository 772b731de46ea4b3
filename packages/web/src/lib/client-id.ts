import { CLIENT_ID_HEADER } from '@engram/shared';

/**
 * This tab's name for the server: sent with every API request (the
 * CLIENT_ID_HEADER header), and echoed as `origin` by the realtime events of
 * the changes the tab made, so the tab can tell its own changes (already
 * announced by a toast) from changes made elsewhere — another tab, an agent,
 * the API with a key — which get a live notification card.
 *
 * Per page load, not stored: two tabs never share one. Made with
 * getRandomValues, which (unlike randomUUID) works on plain-http addresses too.
 */
export const TAB_CLIENT_ID: string = (() => {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `tab-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
})();

export { CLIENT_ID_HEADER };
