// Lint (issue 16): the rules that catch what review misses here — promises nobody
// awaits (the site router answers while work goes on), switches that forget a case,
// imports that pull a runtime module for a type. Formatting is Prettier's job.
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import prettier from 'eslint-config-prettier';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';

import { LAYERS } from './scripts/layers.mjs';

// Issue 27: imports point one way. scripts/layers.mjs orders the folders of src/ top to
// bottom; a folder may import those below it, never one above, so no two folders import
// each other. `npm run import-graph` counts what is left.
const ORDER = LAYERS.flatMap((layer) => layer.folders);
const layerRule = {
  files: ['src/**/*.ts'],
  // A unit test may import what it checks against (the router's and the deploy's path
  // forms agree, say); `npm run import-graph` leaves spec files out the same way.
  ignores: ['src/**/*.spec.ts'],
  plugins: { boundaries },
  settings: {
    'boundaries/root-path': import.meta.dirname,
    'import/resolver': { node: { extensions: ['.ts', '.js', '.json'] } },
    'boundaries/files': [
      // The one declared two-way pair: TypeORM needs every entity class in one list (the
      // data source, the migrations and the tests all build from it), so the database
      // layer's entity list names each feature's entity files, and only this file does.
      { category: 'entity-list', pattern: 'src/database/entities.ts' },
      { category: 'root', pattern: 'src/*.ts' },
    ],
    'boundaries/elements': ORDER.filter((folder) => folder !== '(root)').map((folder) => ({ type: folder, pattern: `src/${folder}`, partialMatch: false })),
  },
  rules: {
    'boundaries/dependencies': [
      'error',
      {
        default: 'disallow',
        message: 'src/{{from.type}} may not import src/{{to.type}}: it sits above in the layers of scripts/layers.mjs (issue 27)',
        policies: [
          { from: { file: { categories: 'entity-list' } }, allow: { to: { element: { types: '*' } } } },
          { from: { file: { categories: 'root' } }, allow: { to: [{ element: { types: '*' } }, { file: { categories: 'root' } }] } },
          ...ORDER.filter((folder) => folder !== '(root)').map((folder, index, below) => ({
            from: { element: { type: folder } },
            allow: {
              to: [{ element: { types: { anyOf: [folder, ...below.slice(index + 1)] } } }],
            },
          })),
        ],
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'packages/sdk/generated/**', 'web/dist/**', 'test/artifacts/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      // The three programs named, not the project service: 68-76 s against 91-95 s for the whole
      // tree here. In this order, each file is typed by its nearest tsconfig, as the service does.
      parserOptions: { project: ['./web/tsconfig.json', './packages/tsconfig.json', './tsconfig.json'], tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      // One import line per module (inline `type` marks, as consistent-type-imports writes them).
      'no-duplicate-imports': ['error', { allowSeparateTypeImports: false }],
      // Input validation matches control characters on purpose (to refuse them).
      'no-control-regex': 'off',
      // Nest's reflection (handlers, controllers, guards) and TypeORM's entity and migration
      // lists are typed with Function by those libraries.
      '@typescript-eslint/no-unsafe-function-type': 'off',
    },
  },
  {
    // Tests read arbitrary JSON answers.
    files: ['test/**/*.ts', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Issue 26: browsers can report a language Intl refuses ("en-US@posix"), so every date,
    // number and size goes through web/src/locale.ts (which falls back), and uPlot (which
    // formats with navigator.language as it loads) only through web/src/charts.ts.
    files: ['web/src/**/*.ts', 'web/src/**/*.tsx'],
    ignores: ['web/src/locale.ts', 'web/src/**/*.spec.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'Intl', message: 'Format through web/src/locale.ts: it falls back when Intl refuses the browser’s language.' },
      ],
      'no-restricted-properties': [
        'error',
        ...['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString'].map((property) => ({
          property,
          message: 'Format through web/src/locale.ts: it falls back when Intl refuses the browser’s language.',
        })),
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'uplot', allowTypeImports: true, message: 'Load uPlot with loadUPlot() (web/src/charts.ts): its import throws on some browser languages.' },
          ],
        },
      ],
    },
  },
  layerRule,
  {
    // The server may use the pure helpers every client shares (packages/shared: the API's
    // size wording), never a client itself: the SDK, CLI and MCP server talk to it over HTTP.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/packages/sdk', '**/packages/sdk/**', '**/packages/cli', '**/packages/cli/**', '**/packages/mcp', '**/packages/mcp/**'],
              message: 'The server does not import its clients (issue 27); a helper both need goes to packages/shared.',
            },
          ],
        },
      ],
    },
  },
  prettier,
);
