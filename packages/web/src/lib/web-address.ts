/**
 * An app's self-reported address (its site, its logo), kept only when it is
 * a web address: anything else (javascript:, data:) is never linked or loaded.
 */
export function webAddress(value: string | null): URL | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}
