#!/usr/bin/env node
'use strict';
/**
 * Compiles the app (src/, scripts/, ormconfig.ts, and packages/shared/, the pure helpers
 * it shares with the clients) to dist/ with swc, one file at a
 * time and only the files whose source is newer than their output, so `npm start`
 * on unchanged sources costs a directory walk, not a compiler run. Type checking is
 * not part of it: `npm test` (and `npm run typecheck`) do that; jest compiles with the
 * same `.swcrc`, so what the tests run is what this emits.
 *
 * Plain JavaScript on purpose: it runs before anything is compiled.
 * The dashboard (web/) is built with Vite into dist/web the same way: only when a file
 * under web/, or the generated API types it compiles against, is newer than its
 * index.html.
 *
 * Usage: node scripts/build.js [--force] [--quiet]
 */
const { spawnSync } = require('node:child_process');
const { readdirSync, readFileSync, statSync, mkdirSync, writeFileSync, rmSync, existsSync } = require('node:fs');
const { join, basename, dirname } = require('node:path');

const root = join(__dirname, '..');
const outDir = join(root, 'dist');
// The clients (packages/sdk, cli, mcp) are not the app: tsc -p tsconfig.sdk.json builds them (npm run build).
const SOURCES = ['src', 'scripts', 'ormconfig.ts', 'packages/shared'];
// Tests (and their fixtures), the SDK generator and browser code are not part of the running app.
const SKIP = [/\.spec\.ts$/, /\.fixture\.ts$/, /\.e2e-spec\.ts$/, /\.d\.ts$/, /^scripts\/openapi\//];

function listSources() {
  const files = [];
  const walk = (rel) => {
    const abs = join(root, rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isFile()) {
      files.push(rel);
      return;
    }
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith('.ts') && !SKIP.some((re) => re.test(child))) files.push(child);
    }
  };
  SOURCES.forEach(walk);
  return files;
}

/** The compiler options of `.swcrc`, as swc's API takes them (without the editor's `$schema`). */
function swcOptions() {
  const options = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
  delete options.$schema;
  return options;
}

const outputOf = (rel) => join(outDir, rel.replace(/\.ts$/, '.js'));

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/** Removes compiled files whose source is gone, so a deleted module cannot linger in dist/. */
function removeOrphans(expected) {
  const walk = (dir) => {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (entry.name.endsWith('.js') && !expected.has(abs)) {
        rmSync(abs, { force: true });
        rmSync(`${abs}.map`, { force: true });
      }
    }
  };
  for (const top of SOURCES) walk(join(outDir, top.replace(/\.ts$/, '.js')));
}

function build({ force = false, quiet = false } = {}) {
  const started = Date.now();
  const sources = listSources();
  const swcrc = join(root, '.swcrc');
  // A changed compiler configuration invalidates every output.
  const configTime = Math.max(mtime(swcrc), mtime(__filename));
  const stale = sources.filter((rel) => {
    const out = mtime(outputOf(rel));
    return force || out < 0 || out < mtime(join(root, rel)) || out < configTime;
  });
  removeOrphans(new Set(sources.map(outputOf)));
  if (stale.length > 0) {
    const swc = require('@swc/core');
    const options = swcOptions();
    for (const rel of stale) {
      const out = outputOf(rel);
      const { code, map } = swc.transformFileSync(join(root, rel), {
        ...options,
        swcrc: false,
        sourceMaps: true,
        filename: join(root, rel),
        outputPath: out,
      });
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, `${code}\n//# sourceMappingURL=${basename(out)}.map\n`);
      if (map) writeFileSync(`${out}.map`, map);
    }
  }
  if (!quiet || stale.length > 0) {
    console.error(`build: ${stale.length} of ${sources.length} files compiled in ${Date.now() - started} ms`);
  }
  return stale.length;
}

const WEB = join(root, 'web');
const WEB_INDEX = join(outDir, 'web', 'index.html');
// What the dashboard imports from the client packages (the SDK's generated types, the
// digest-first deploy, the API's size wording): a change to any of them rebuilds it.
const WEB_INPUTS = [WEB, join(root, 'packages', 'sdk'), join(root, 'packages', 'shared')];

/** The newest mtime of a file or of any file under a folder. */
function newest(path) {
  if (!existsSync(path)) return -1;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let max = info.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    max = Math.max(max, newest(join(path, entry.name)));
  }
  return max;
}

/** Builds the dashboard with Vite when its sources changed (or `force`); returns whether it did. */
function buildWeb({ force = false, quiet = false } = {}) {
  if (!existsSync(WEB)) return false;
  const built = mtime(WEB_INDEX);
  if (!force && built >= 0 && WEB_INPUTS.every((p) => newest(p) <= built)) return false;
  let vite;
  try {
    vite = join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    // An install without dev dependencies (the image ships dist/web built).
    if (built < 0) console.error('build: the dashboard is not built and Vite is not installed (npm install, then npm run build)');
    return false;
  }
  const started = Date.now();
  // Always the production build: under jest (NODE_ENV=test) Vite would bundle React's development build, 1.6x larger.
  const env = { ...process.env, NODE_ENV: 'production' };
  const result = spawnSync(process.execPath, [vite, 'build', '--config', join(WEB, 'vite.config.mts')], {
    cwd: root,
    env,
    stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit',
  });
  if (result.status !== 0) throw new Error(`build: vite build of the dashboard failed (exit ${result.status})`);
  console.error(`build: dashboard built in ${Date.now() - started} ms`);
  return true;
}

module.exports = { build, buildWeb, swcOptions, SOURCES };

if (require.main === module) {
  const args = process.argv.slice(2);
  build({ force: args.includes('--force'), quiet: args.includes('--quiet') });
  buildWeb({ force: args.includes('--force'), quiet: args.includes('--quiet') });
}
