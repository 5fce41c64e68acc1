'use strict';
/**
 * The order jest starts test files in: the slowest first, so that the last minute of a
 * run does not have one worker finishing cli.e2e-spec.ts while the other sits idle.
 *
 * Jest's own sequencer does that only from timings it stored on this machine (its cache
 * directory), and puts files it has no timing for first, by size: in a fresh clone (CI)
 * that starts the unit specs first and a 45 s file of 100 lines last. Here a file with no
 * stored timing takes its seconds from durations.json (a full run's, slow files only,
 * refreshed by hand now and then: it only orders files, it cannot make one fail), and a file
 * in neither is guessed from its size, an e2e file as at least a few seconds.
 *
 * Plain JavaScript: jest loads the sequencer before any transform is set up.
 */
const { relative } = require('node:path');

const Sequencer = require('@jest/test-sequencer').default;

const DURATIONS = require('./durations.json');
const ROOT = require('node:path').join(__dirname, '..', '..');

class SlowestFirst extends Sequencer {
  sort(tests) {
    const size = new Map();
    const sizeOf = (test) => {
      if (!size.has(test.path)) size.set(test.path, test.context.hasteFS.getSize(test.path) ?? 0);
      return size.get(test.path);
    };
    const expected = new Map(
      tests.map((test) => {
        const measured = this.time(test);
        // As jest's own sort does: the scheduler reads it (whether to run in band).
        test.duration = measured;
        const listed = DURATIONS[relative(ROOT, test.path).split('\\').join('/')];
        // About a second per 2 kB of test, and an e2e file boots an app: a few seconds more.
        const guessed = sizeOf(test) / 2 + (/\.e2e-spec\.ts$/.test(test.path) ? 5000 : 0);
        return [test.path, measured ?? (listed === undefined ? guessed : listed * 1000)];
      }),
    );
    return [...tests].sort((a, b) => {
      const failedA = this.hasFailed(a);
      if (failedA !== this.hasFailed(b)) return failedA ? -1 : 1;
      return expected.get(b.path) - expected.get(a.path);
    });
  }
}

module.exports = SlowestFirst;
