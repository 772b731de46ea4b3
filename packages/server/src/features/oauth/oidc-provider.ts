/**
 * oidc-provider, loaded without its one start-up warning on Node 20 ("Unsupported
 * runtime", it asks for Node 22 LTS): Engram supports Node 20, and the OAuth
 * tests run there (decision 022). Any other warning of the library still shows.
 */
const RUNTIME_WARNING = 'oidc-provider WARNING: Unsupported runtime';

const warn = console.warn;
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].includes(RUNTIME_WARNING)) return;
  warn(...args);
};
const library = await import('oidc-provider').finally(() => {
  console.warn = warn;
});

export const { errors } = library;
export const Provider = library.default;
