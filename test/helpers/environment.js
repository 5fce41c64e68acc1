'use strict';
/**
 * jest's Node environment, plus `requireOutsideVm(id)`, which loads one of the packages
 * below with Node's own `require`, outside the test file's vm context.
 *
 * Why: jest runs a test file's modules in a `vm` context, where every read of a global
 * (`Math`, `Object`, `Array`) goes through the context's interceptors, about 100 times
 * slower than in plain Node. Playwright's client validates every protocol message with
 * small functions full of such reads: in a browser suite it spent 6.7 s of the worker's
 * 15 s of CPU, and it was loaded afresh (a 5 MB bundle) for every file. Loaded by Node it
 * runs at full speed and once per worker.
 *
 * Only packages whose objects the tests use as values (pages, locators, buffers), never
 * with `instanceof` against the test's own classes: objects made outside the vm belong to
 * another realm.
 *
 * Plain JavaScript: jest loads the environment before any transform is set up.
 */
const { TestEnvironment } = require('jest-environment-node');

const OUTSIDE_VM = new Set(['playwright-core']);

class Environment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.requireOutsideVm = (id) => {
      if (!OUTSIDE_VM.has(id)) throw new Error(`requireOutsideVm: ${id} is not one of ${[...OUTSIDE_VM].join(', ')} (test/helpers/environment.js)`);
      return require(id);
    };
  }
}

module.exports = Environment;
