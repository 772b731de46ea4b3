// Module resolution hook (registered by node20.mjs): inside the conformance
// package only, `fs` / `node:fs` resolve to fs.mjs.
const shim = new URL('./fs.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (
    (specifier === 'fs' || specifier === 'node:fs') &&
    context.parentURL?.includes('/@modelcontextprotocol/conformance/')
  ) {
    return { url: shim, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
