import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

import { transformFileSync } from '@swc/core';

/**
 * The `statichost` bin as an installed package runs it: bin/statichost.js (copied as is)
 * beside dist/ holding the clients compiled once, by the same swc options jest and
 * `npm run build` use. Run from the checkout, the bin loads @swc-node/register, which loads
 * TypeScript itself: about half a second of CPU per command, and the CLI suites run a
 * hundred commands. global-setup.ts builds it once per run and passes its path to the
 * test files in STATICHOST_TEST_CLI_BIN; the checkout's own bin stays covered by the MCP
 * suites, which start `bin/statichost.js mcp`.
 *
 * The folder lives under node_modules/.cache so that the compiled files find the
 * checkout's node_modules the way an installed package finds its dependencies.
 */
export const COMPILED_CLI_ENV = 'STATICHOST_TEST_CLI_BIN';

const ROOT = join(__dirname, '..', '..');
/** What the bin loads from dist/: each client, and the helpers they share. */
const PACKAGES = ['cli', 'sdk', 'mcp', 'shared'];

export function compileCli(): string {
  const options = JSON.parse(readFileSync(join(ROOT, '.swcrc'), 'utf8')) as Record<string, unknown>;
  delete options.$schema;
  const cacheDir = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cacheDir, { recursive: true });
  const dir = mkdtempSync(join(cacheDir, 'statichost-test-cli-'));
  const walk = (abs: string): void => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const path = join(abs, entry.name);
      const out = join(dir, 'dist', relative(join(ROOT, 'packages'), path));
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.json')) {
        mkdirSync(dirname(out), { recursive: true });
        copyFileSync(path, out);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts')) {
        const { code } = transformFileSync(path, { ...options, swcrc: false, filename: path });
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out.replace(/\.ts$/, '.js'), code);
      }
    }
  };
  for (const name of PACKAGES) walk(join(ROOT, 'packages', name));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(ROOT, 'bin', 'statichost.js'), join(dir, 'bin', 'statichost.js'));
  // The CLI reads its name and version from the package's package.json.
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  return join(dir, 'bin', 'statichost.js');
}

export function removeCompiledCli(bin: string | undefined): void {
  if (bin) rmSync(join(dirname(bin), '..'), { recursive: true, force: true });
}
