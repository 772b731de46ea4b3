#!/usr/bin/env node
/**
 * The web package's build: the app (`vite build` with the arguments given:
 * `--outDir`, `--logLevel`…), then the MCP Apps views (docs/mcp-apps.md), each
 * built alone into one self-contained HTML document — its scripts, worker and
 * styles inline — at <outDir>/mcp-apps/<view>.html, which the server answers
 * at `ui://engram/<view>`.
 *
 *   node mcp-apps/build.mjs [vite build's arguments]
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const WEB = fileURLToPath(new URL('..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));
const VIEWS = ['graph', 'entity', 'duplicates'];
/** Issue 61: a view weighs at most this. */
const MAX_BYTES = 500 * 1024;

const args = process.argv.slice(2);
/** The value of `--name value` or `--name=value` among the arguments. */
function option(name) {
  const at = args.indexOf(`--${name}`);
  if (at >= 0) return args[at + 1];
  return args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}
const logLevel = option('logLevel');
const OUT = resolve(WEB, option('outDir') ?? 'dist', 'mcp-apps');

/** Puts the entry's script and styles inside the HTML; nothing else is written. */
function inlineEverything() {
  return {
    name: 'engram-inline-view',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const html = Object.values(bundle).find((file) => file.fileName.endsWith('.html'));
      if (!html) throw new Error('no HTML in the view build');
      let page = String(html.source);
      for (const file of Object.values(bundle)) {
        if (file === html) continue;
        const name = file.fileName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        if (file.type === 'chunk') {
          const code = file.code.replace(/<\/script/gi, '<\\/script');
          const tag = new RegExp(`<script[^>]*src="[^"]*${name}"[^>]*></script>`);
          if (!tag.test(page)) throw new Error(`${file.fileName} is not the view's entry`);
          page = page.replace(tag, () => `<script type="module">${code}</script>`);
        } else if (file.fileName.endsWith('.css')) {
          const tag = new RegExp(`<link[^>]*href="[^"]*${name}"[^>]*>`);
          page = page.replace(tag, () => `<style>${String(file.source)}</style>`);
        } else {
          throw new Error(`${file.fileName} would be a separate file`);
        }
        delete bundle[file.fileName];
      }
      html.source = page;
    },
  };
}

const vite = resolve(
  dirname(createRequire(import.meta.url).resolve('vite/package.json')),
  'bin/vite.js',
);
const app = spawnSync(process.execPath, [vite, 'build', ...args], { cwd: WEB, stdio: 'inherit' });
if (app.status !== 0) process.exit(app.status ?? 1);

rmSync(OUT, { recursive: true, force: true });
for (const view of VIEWS) {
  await build({
    root: HERE,
    configFile: false,
    logLevel: logLevel ?? 'warn',
    base: './',
    resolve: {
      alias: {
        '@engram/shared': fileURLToPath(new URL('../../shared/src/index.ts', import.meta.url)),
      },
    },
    worker: { format: 'es' },
    plugins: [inlineEverything()],
    build: {
      outDir: OUT,
      emptyOutDir: false,
      assetsInlineLimit: Number.MAX_SAFE_INTEGER,
      cssCodeSplit: false,
      modulePreload: false,
      reportCompressedSize: false,
      rollupOptions: { input: `${HERE}${view}.html` },
    },
  });
  const bytes = statSync(`${OUT}/${view}.html`).size;
  if (bytes > MAX_BYTES) throw new Error(`mcp-apps/${view}.html is ${bytes} bytes, over 500 KB`);
}
