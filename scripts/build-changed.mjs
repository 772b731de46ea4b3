#!/usr/bin/env node
/**
 * Builds the packages whose inputs changed since their last successful build,
 * so `npm start` on an unchanged tree starts at once.
 *
 *   node scripts/build-changed.mjs [--force] [--after-install] [shared|server|web …]
 *
 * A package's fingerprint is a hash of its sources and build configuration
 * (contents, not dates, so a `git pull` that changes nothing rebuilds nothing),
 * the root's tsconfig and lock file, and the fingerprints of the packages it
 * builds on — a changed shared package rebuilds server and web. After a build
 * the fingerprint is written to <package>/dist/.build-stamp.json with a
 * listing of dist itself, so a dist deleted or rebuilt by other means is
 * rebuilt too. `--after-install` (the root `prepare` script) never fails
 * `npm install`: a failed build is reported and left to the next start.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What each package's build reads, in build order. */
export const PACKAGES = [
  {
    name: 'shared',
    dir: 'packages/shared',
    inputs: ['src', 'package.json', 'tsconfig.json'],
    dependsOn: [],
  },
  {
    name: 'server',
    dir: 'packages/server',
    inputs: ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'],
    dependsOn: ['shared'],
  },
  {
    name: 'web',
    dir: 'packages/web',
    inputs: [
      'src',
      'public',
      'index.html',
      'mcp-apps',
      'package.json',
      'tsconfig.json',
      'vite.config.ts',
    ],
    dependsOn: ['shared'],
    // Vite lists every asset it writes; a start needs only its warnings.
    buildArgs: ['--logLevel', 'warn'],
  },
];

/** Root files every build reads: compiler options and the installed dependency versions. */
export const ROOT_INPUTS = ['tsconfig.base.json', 'package-lock.json'];

export const STAMP = '.build-stamp.json';

/** Tests and their helpers are not part of any build's output. */
const NOT_BUILT = /(\.test(-support)?\.[cm]?[jt]sx?$)|(^src\/test\/)/;

/** Every file under `path` (a file or a folder), relative to `base`, sorted. */
function filesUnder(base, path) {
  const full = join(base, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(base, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** Hash of a package's inputs (names and contents) and of the packages it builds on. */
export function inputFingerprint(root, pkg, dependencyFingerprints = []) {
  const hash = createHash('sha256');
  const add = (base, label, files) => {
    for (const file of files) {
      hash.update(`${label}/${file}\0`);
      hash.update(readFileSync(join(base, file)));
      hash.update('\0');
    }
  };
  add(
    root,
    '<root>',
    ROOT_INPUTS.flatMap((path) => filesUnder(root, path)),
  );
  const dir = join(root, pkg.dir);
  const files = pkg.inputs.flatMap((path) => filesUnder(dir, path));
  add(
    dir,
    pkg.dir,
    files.filter((file) => !NOT_BUILT.test(file)),
  );
  for (const dependency of dependencyFingerprints) hash.update(`dep:${dependency}\0`);
  return hash.digest('hex');
}

/** Hash of what is in dist (names, sizes, modification times), the stamp aside. */
export function outputFingerprint(root, pkg) {
  const dist = join(root, pkg.dir, 'dist');
  const hash = createHash('sha256');
  for (const file of filesUnder(dist, '.')) {
    if (file === STAMP) continue;
    const { size, mtimeMs } = statSync(join(dist, file));
    hash.update(`${file}\0${size}\0${mtimeMs}\0`);
  }
  return hash.digest('hex');
}

function readStamp(root, pkg) {
  try {
    return JSON.parse(readFileSync(join(root, pkg.dir, 'dist', STAMP), 'utf8'));
  } catch {
    return undefined;
  }
}

export function writeStamp(root, pkg, inputs) {
  const path = join(root, pkg.dir, 'dist', STAMP);
  const stamp = { inputs, outputs: outputFingerprint(root, pkg) };
  writeFileSync(`${path}.tmp`, JSON.stringify(stamp));
  renameSync(`${path}.tmp`, path);
}

/**
 * Which packages to build: those named (all when none are), each with its
 * fingerprint and whether its last build still holds.
 */
export function plan(root, names = []) {
  const wanted = new Set(names.length ? names : PACKAGES.map((pkg) => pkg.name));
  for (const pkg of PACKAGES) if (wanted.has(pkg.name)) pkg.dependsOn.forEach((d) => wanted.add(d));
  const fingerprints = new Map();
  const steps = [];
  for (const pkg of PACKAGES) {
    if (!wanted.has(pkg.name)) continue;
    const inputs = inputFingerprint(
      root,
      pkg,
      pkg.dependsOn.map((name) => fingerprints.get(name)),
    );
    fingerprints.set(pkg.name, inputs);
    const stamp = readStamp(root, pkg);
    const current = stamp?.inputs === inputs && stamp.outputs === outputFingerprint(root, pkg);
    steps.push({ pkg, inputs, current });
  }
  return steps;
}

/** Builds what changed with each package's own `npm run build`; returns the exit code. */
export function buildChanged(
  root,
  { names = [], force = false, run = npmBuild, log = console.error } = {},
) {
  const steps = plan(root, names);
  const stale = steps.filter((step) => force || !step.current);
  if (stale.length === 0) {
    log(`build: ${steps.map((step) => step.pkg.name).join(', ')} up to date`);
    return 0;
  }
  for (const { pkg, inputs } of stale) {
    const started = performance.now();
    const code = run(root, pkg);
    if (code !== 0) {
      log(`build: ${pkg.name} failed`);
      return code;
    }
    writeStamp(root, pkg, inputs);
    log(`build: ${pkg.name} built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  return 0;
}

function npmBuild(root, pkg) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = ['run', 'build', '--silent', '-w', pkg.dir, '--', ...(pkg.buildArgs ?? [])];
  const result = spawnSync(npm, args, {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  return result.status ?? 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const root = fileURLToPath(new URL('..', import.meta.url));
  const afterInstall = args.includes('--after-install');
  const names = args.filter((arg) => !arg.startsWith('--'));
  const unknown = names.filter((name) => !PACKAGES.some((pkg) => pkg.name === name));
  if (unknown.length) {
    console.error(`build: unknown package ${unknown.join(', ')}`);
    process.exit(2);
  }
  let code;
  try {
    code = buildChanged(root, { names, force: args.includes('--force') });
  } catch (error) {
    console.error(error);
    code = 1;
  }
  if (code !== 0 && afterInstall) {
    console.error('build: left for `npm start` to finish.');
    code = 0;
  }
  process.exit(code);
}
