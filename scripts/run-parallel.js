#!/usr/bin/env node
'use strict';
/**
 * Runs npm scripts at once and fails when any fails: `node scripts/run-parallel.js lint typecheck`.
 * eslint and tsc each use one core, so on a 2-core machine the lint and the typecheck
 * together take about as long as the slower of them instead of their sum. Each script's
 * output is held and printed whole when it ends, so two reports never interleave.
 *
 * Plain JavaScript on purpose (like scripts/build.js): nothing needs compiling to run it.
 */
const { spawn } = require('node:child_process');

const names = process.argv.slice(2);
if (names.length === 0) {
  process.stderr.write('usage: node scripts/run-parallel.js <npm script>...\n');
  process.exit(2);
}

const npm = process.env.npm_execpath;
const runs = names.map(
  (name) =>
    new Promise((resolve) => {
      const started = Date.now();
      // Inside `npm run`, npm_execpath is npm's own CLI: run it with this node, as npm does.
      const child = npm
        ? spawn(process.execPath, [npm, 'run', name], { stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn('npm', ['run', name], { stdio: ['ignore', 'pipe', 'pipe'] });
      const output = [];
      child.stdout.on('data', (chunk) => output.push(chunk));
      child.stderr.on('data', (chunk) => output.push(chunk));
      child.on('error', (err) => output.push(Buffer.from(`${err.stack || err}\n`)));
      child.on('close', (code, signal) => {
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        const ok = code === 0;
        process.stdout.write(Buffer.concat(output));
        process.stdout.write(`${ok ? '✓' : '✗'} npm run ${name}: ${ok ? 'passed' : `failed (${signal ?? `exit ${code}`})`} in ${seconds} s\n`);
        resolve(ok);
      });
    }),
);

Promise.all(runs).then((results) => {
  process.exitCode = results.every(Boolean) ? 0 : 1;
});
