'use strict';
/**
 * A require hook that compiles TypeScript with @swc/core and the project's .swcrc, for the
 * processes the benchmarks measure. @swc-node/register reads tsconfig through the
 * TypeScript compiler, which then stays in the measured process's heap (9 MB of source
 * and its code): that is not what production runs (compiled files, no TypeScript).
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { addHook } = require('pirates');
const swc = require('@swc/core');

const options = JSON.parse(readFileSync(join(__dirname, '..', '.swcrc'), 'utf8'));
delete options.$schema;

process.setSourceMapsEnabled(true);
addHook((code, filename) => swc.transformSync(code, { ...options, swcrc: false, filename }).code, {
  exts: ['.ts'],
  ignoreNodeModules: true,
});
