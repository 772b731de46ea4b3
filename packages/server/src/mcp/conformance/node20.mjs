// Preload (`node --import`) that lets @modelcontextprotocol/conformance run
// on Node 20: it imports `globSync` from `fs`, which Node added in 22. On a
// Node without it, `fs` imported by that package resolves to fs.mjs (all of
// node:fs plus `globSync` from the `glob` package). Elsewhere nothing changes.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./hooks.mjs', import.meta.url);
