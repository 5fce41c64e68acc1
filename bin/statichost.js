#!/usr/bin/env node
'use strict';
/**
 * The `statichost` command. In a checkout (packages/cli present and devDependencies
 * installed) it runs the TypeScript sources through @swc-node/register, so it
 * works right after `npm install` and never runs a stale build; in an installed
 * or built package it runs the compiled dist/cli/main.js (`npm run build`).
 */
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const source = join(root, 'packages', 'cli', 'main.ts');
const compiled = join(root, 'dist', 'cli', 'main.js');

function canCompile() {
  try {
    require.resolve('@swc-node/register', { paths: [root] });
    return true;
  } catch {
    return false;
  }
}

let entry;
if (existsSync(source) && canCompile() && process.env.STATICHOST_CLI_COMPILED !== '1') {
  // swc-node reads this tsconfig, not one in the user's working directory.
  process.env.SWC_NODE_PROJECT = join(root, 'packages', 'tsconfig.json');
  require(require.resolve('@swc-node/register', { paths: [root] }));
  entry = source;
} else if (existsSync(compiled)) {
  entry = compiled;
} else {
  process.stderr.write('statichost: run `npm install` (then `npm run build` for a compiled CLI) in ' + root + '\n');
  process.exit(1);
}

require(entry)
  .main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env })
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(String((err && err.stack) || err) + '\n');
      process.exitCode = 1;
    },
  );
