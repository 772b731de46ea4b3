/**
 * Where the server's CPU went during a measured window, from the V8 profile
 * `node --cpu-prof` wrote: self time by function and by area (gateway, ws,
 * PGlite, Fastify, GC, …). The profile's clock is CLOCK_MONOTONIC in µs, the
 * same one process.hrtime() reads here, so a window recorded in this process
 * selects the samples taken in it.
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Wall time the window covered in the profile, ms. */
  windowMs: number;
  /** CPU (non-idle) time sampled in the window, ms. */
  busyMs: number;
  areas: { area: string; ms: number; share: number }[];
  functions: { fn: string; ms: number; share: number }[];
}

const AREAS: [string, RegExp][] = [
  ['gateway (realtime/gateway.ts)', /realtime\/gateway\.ts/],
  ['event bus', /realtime\/(event-bus|redis-bus)\.ts/],
  ['ws library (frame, send)', /node_modules\/ws\//],
  ['PGlite (embedded Postgres, WASM)', /pglite|pg-protocol|^wasm:/i],
  ['Kysely (query building)', /node_modules\/kysely\//],
  ['graph service / repository', /features\/graph\//],
  ['auth / keys', /features\/(auth|keys)\/|http\/authenticate/],
  [
    'Fastify (routing, hooks, reply)',
    /node_modules\/(fastify|@fastify|find-my-way|avvio|light-my-request|fast-json-stringify|secure-json-parse)/,
  ],
  ['zod (validation, serialization)', /node_modules\/(zod|fastify-type-provider-zod)\//],
  [
    'node: net / stream / http',
    /^node:(net|stream|_http|http|internal\/(streams|stream_base|net|http))/,
  ],
  ['node: other internals', /^node:/],
];

function areaOf(frame: ProfileNode['callFrame']): string {
  const name = frame.functionName;
  if (name === '(idle)') return '(idle)';
  if (name === '(garbage collector)') return 'GC';
  if (name === '(program)') return '(program: native, outside JS)';
  if (!frame.url) return `native: ${name || '(anonymous)'}`;
  for (const [area, pattern] of AREAS) if (pattern.test(frame.url)) return area;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(frame.url);
  if (pkg) return `npm: ${pkg[1]}`;
  const src = /\/src\/(.*)\/[^/]+$/.exec(frame.url);
  if (src) return `server src: ${src[1]}`;
  return `other JS (${shortUrl(frame.url)})`;
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
  const src = url.indexOf('/src/');
  if (src >= 0) return url.slice(src + 1);
  return url.replace(/^file:\/\//, '');
}

/** Self time in [fromUs, toUs] (CLOCK_MONOTONIC µs), grouped. */
export async function summarizeProfile(
  path: string,
  fromUs: number,
  toUs: number,
  top = 20,
): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let t = profile.startTime;
  let busyUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (t < fromUs || t > toUs) continue;
    const frame = nodes.get(profile.samples[i]!)?.callFrame;
    if (!frame) continue;
    const area = areaOf(frame);
    if (area === '(idle)') continue;
    busyUs += delta;
    byArea.set(area, (byArea.get(area) ?? 0) + delta);
    const fn = frame.url
      ? `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`
      : frame.functionName;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + delta);
  }
  const rank = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .map(([key, us]) => ({ key, ms: us / 1000, share: busyUs ? us / busyUs : 0 }));
  return {
    windowMs: (Math.min(toUs, profile.endTime) - Math.max(fromUs, profile.startTime)) / 1000,
    busyMs: busyUs / 1000,
    areas: rank(byArea).map(({ key, ms, share }) => ({ area: key, ms, share })),
    functions: rank(byFunction)
      .slice(0, top)
      .map(({ key, ms, share }) => ({ fn: key, ms, share })),
  };
}
