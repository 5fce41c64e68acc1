'use strict';
/**
 * A require hook that compiles TypeScript with @swc/core and the project's .swcrc, for the
 * processes the benchmarks measure. @swc-node/register reads tsconfig through the
 * TypeScript compiler, which then stays in the measured process's heap (9 MB of source
 * and its code): that is not what production runs (compiled files, no TypeScript).
 */
const { addHook } = require('pirates');
const swc = require('@swc/core');

// The same options as the app's own build (scripts/build.js), so what is measured is what ships.
const { swcOptions } = require('../scripts/build');

const options = swcOptions();

process.setSourceMapsEnabled(true);
addHook((code, filename) => swc.transformSync(code, { ...options, swcrc: false, filename }).code, {
  exts: ['.ts'],
  ignoreNodeModules: true,
});
