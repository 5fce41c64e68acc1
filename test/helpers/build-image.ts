import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

import { findOnPath } from '../../src/builds/runner/select-runner';

/** podman's path, or null: tests of the container runner are skipped (with the reason printed) without it. */
export const podmanPath = findOnPath('podman');

/**
 * The locally built build image (scripts/build-image/build-test-image.sh: this machine's
 * node, npm, sh and their libraries, user `node` 1000:1000). Nothing is pulled: registries
 * are not reachable from CI. Built once per input hash; seconds the first time.
 */
export function buildTestImage(engine: 'podman' | 'docker' = 'podman'): string {
  const script = resolve(__dirname, '../../scripts/build-image/build-test-image.sh');
  const out = execFileSync(script, [engine], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return out.trim().split('\n').pop()!;
}
