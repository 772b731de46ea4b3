// node:fs with the `globSync` Node 22 added, from the `glob` package (the
// conformance suite uses it as `globSync(pattern, { cwd })`, which both share).
import fs from 'node:fs';
import { globSync } from 'glob';

export * from 'node:fs';
export { globSync };
export default { ...fs, globSync };
