import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildChanged } from './build-changed.mjs';

let root;
let built;

function write(path, content) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** A stand-in for `npm run build`: records the package and writes its dist. */
function fakeBuild(failing = []) {
  return (_root, pkg) => {
    built.push(pkg.name);
    if (failing.includes(pkg.name)) return 1;
    write(`${pkg.dir}/dist/index.js`, `built ${pkg.name} ${built.length}`);
    return 0;
  };
}

const build = (options = {}) =>
  buildChanged(root, { run: fakeBuild(options.failing), log: () => {}, ...options });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'build-changed-'));
  built = [];
  write('tsconfig.base.json', '{}');
  write('package-lock.json', '{"lockfileVersion":3}');
  for (const name of ['shared', 'server', 'web']) {
    write(`packages/${name}/package.json`, `{"name":"@engram/${name}"}`);
    write(`packages/${name}/tsconfig.json`, '{}');
    write(`packages/${name}/src/index.ts`, `export const ${name} = 1;`);
    write(`packages/${name}/src/index.test.ts`, 'test');
  }
  write('packages/server/src/test/harness.ts', 'harness');
  write('packages/web/index.html', '<div id="root"></div>');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('build-changed', () => {
  it('builds everything once, then nothing while nothing changes', () => {
    expect(build()).toBe(0);
    expect(built).toEqual(['shared', 'server', 'web']);
    built = [];
    expect(build()).toBe(0);
    expect(built).toEqual([]);
  });

  it('rebuilds only the package whose source changed', () => {
    build();
    built = [];
    write('packages/server/src/index.ts', 'export const server = 2;');
    build();
    expect(built).toEqual(['server']);
  });

  it('rebuilds the packages built on a changed shared package', () => {
    build();
    built = [];
    write('packages/shared/src/index.ts', 'export const shared = 2;');
    build();
    expect(built).toEqual(['shared', 'server', 'web']);
  });

  it('rebuilds everything when the installed dependencies change', () => {
    build();
    built = [];
    write('package-lock.json', '{"lockfileVersion":3,"packages":{}}');
    build();
    expect(built).toEqual(['shared', 'server', 'web']);
  });

  it('rebuilds a package whose new source file appeared or build config changed', () => {
    build();
    built = [];
    write('packages/web/src/new-screen.tsx', 'export {}');
    write('packages/server/tsconfig.build.json', '{"exclude":[]}');
    build();
    expect(built).toEqual(['server', 'web']);
  });

  it('ignores tests and a touch that leaves contents as they were', () => {
    build();
    built = [];
    write('packages/server/src/index.test.ts', 'changed test');
    write('packages/server/src/test/harness.ts', 'changed harness');
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'packages/shared/src/index.ts'), later, later);
    build();
    expect(built).toEqual([]);
  });

  it('rebuilds a package whose dist was deleted or rebuilt by other means', () => {
    build();
    built = [];
    rmSync(join(root, 'packages/web/dist'), { recursive: true });
    write('packages/server/dist/index.js', 'built by hand from other sources');
    build();
    expect(built).toEqual(['server', 'web']);
  });

  it('keeps no stamp for a failed build, stops there and tries again next time', () => {
    expect(build({ failing: ['server'] })).toBe(1);
    expect(built).toEqual(['shared', 'server']);
    built = [];
    expect(build()).toBe(0);
    expect(built).toEqual(['server', 'web']);
  });

  it('builds a named package with what it builds on, and --force builds even when current', () => {
    build({ names: ['server'] });
    expect(built).toEqual(['shared', 'server']);
    built = [];
    build({ names: ['server'], force: true });
    expect(built).toEqual(['shared', 'server']);
  });
});
