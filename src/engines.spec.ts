import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { satisfies, subset } from 'semver';

/**
 * package.json's `engines.node` is a promise to whoever installs the service: every
 * Node version it names must run every production dependency. `npm install` only warns
 * (EBADENGINE) when one needs a newer Node (file-type 22 needs 22, while Node 20 is
 * still promised), so this fails instead. The range is the intersection of the
 * dependencies' own ranges: several skip Node 21 and early 22.x.
 */
const root = join(__dirname, '..');
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), 'utf8'));

describe('engines.node', () => {
  const ours: string = readJson('package.json').engines.node;
  const lock: { packages: Record<string, { version?: string; dev?: boolean; engines?: unknown }> } = readJson('package-lock.json');

  it('is the same in package.json and package-lock.json', () => {
    expect((lock.packages[''].engines as { node?: string } | undefined)?.node).toBe(ours);
  });

  it('promises no Node version that a production dependency refuses', () => {
    const refusing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (!path || entry.dev) continue;
      const node = entry.engines && !Array.isArray(entry.engines) ? (entry.engines as { node?: string }).node : undefined;
      if (node && !subset(ours, node)) refusing.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} wants node ${node}`);
    }
    expect(refusing).toEqual([]);
  });

  it('lets the installed file-type (an @nestjs/common dependency) run on the oldest promised Node', () => {
    // Where Node's resolution from @nestjs/common finds it (its package has no ./package.json export).
    const where = ['node_modules/@nestjs/common/node_modules/file-type', 'node_modules/file-type'].find((dir) => existsSync(join(root, dir)));
    const installed = readJson(`${where}/package.json`);
    expect(satisfies('20.19.0', ours)).toBe(true);
    expect(satisfies('20.19.0', installed.engines.node)).toBe(true);
  });
});
