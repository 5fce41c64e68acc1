import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { DetectedBuild, PackageManager } from './types';

/** Lock files per package manager, the one whose hash keys the dependency cache first. */
export const LOCK_FILES: Record<PackageManager, string[]> = {
  npm: ['package-lock.json', 'npm-shrinkwrap.json'],
  pnpm: ['pnpm-lock.yaml'],
  yarn: ['yarn.lock'],
};

/** Where a build with no framework detected and no outputDirectory set most likely wrote its site, in this order. */
export const OUTPUT_CANDIDATES = ['dist', 'build', 'out', 'public', '_site'];

/** What the user set in the project's Git settings; each one set wins over detection. */
export interface BuildOverrides {
  installCommand: string | null;
  buildCommand: string | null;
  outputDirectory: string | null;
}

/** DetectedBuild before the build: with no framework and no setting, the output folder is found after the build (`OUTPUT_CANDIDATES`). */
export type Detection = Omit<DetectedBuild, 'outputDirectory'> & {
  outputDirectory: string | null;
  /** The lock file found (relative to the site's folder), keying the dependency cache. */
  lockFile: string | null;
};

const SILENT = { debug: () => undefined, log: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * The install command per package manager: the lock file is followed exactly when
 * there is one, and packages already in the restored cache are not fetched again
 * (`--prefer-offline`: npm and pnpm still check nothing with the registry for them).
 */
export function installCommandFor(packageManager: PackageManager, hasLockFile: boolean): string {
  switch (packageManager) {
    case 'npm':
      return `${hasLockFile ? 'npm ci' : 'npm install'} --prefer-offline --no-audit --no-fund`;
    case 'pnpm':
      // CI=true makes pnpm refuse an outdated lock file, as npm ci does.
      return 'pnpm install --prefer-offline';
    case 'yarn':
      // Yarn 1 and Yarn 2+ share no flag for "frozen" or "offline": plain install reads both's lock file.
      return 'yarn install';
  }
}

/**
 * Framework, package manager and commands of the site in `siteDir` (the repository's
 * root directory setting), by Netlify's own detector (@netlify/build-info: the same
 * heuristics its build system uses). A folder with no package.json is a plain static
 * site: nothing to install or build, the folder itself is the output.
 */
export async function detectBuild(siteDir: string, overrides: BuildOverrides): Promise<Detection> {
  const hasPackageJson = await exists(join(siteDir, 'package.json'));
  let detected: Detection = { framework: null, packageManager: null, installCommand: null, buildCommand: null, outputDirectory: null, lockFile: null };
  if (!hasPackageJson) {
    detected.outputDirectory = '';
  } else {
    // root = the site's folder: the detector looks up for lock files and workspace roots,
    // never above it (so never outside the checkout). A site in a workspace of a monorepo
    // is detected as a package of its own (its lock file in its folder), for now.
    // Loaded here, not at the top: the detector and its dependencies are hundreds of modules
    // that only a build needs, and every start of the app (each e2e file's) would load them.
    const [{ Project }, { NodeFS }] = await Promise.all([import('@netlify/build-info'), import('@netlify/build-info/node')]);
    const fs = new NodeFS();
    // The repository's own mistakes (a broken package.json) are not the builder's errors to print.
    fs.logger = SILENT;
    const project = new Project(fs, siteDir, siteDir)
      .setEnvironment({})
      .setNodeVersion(process.version)
      // No error reports leave the builder (the default reporter is Bugsnag's).
      .setReportFn(() => undefined);
    const settings = await project.getBuildSettings();
    const site = settings.find((s) => !s.packagePath) ?? settings[0];
    const manager = project.packageManager?.name;
    const packageManager: PackageManager = manager === 'pnpm' || manager === 'yarn' ? manager : 'npm';
    let lockFile: string | null = null;
    for (const name of LOCK_FILES[packageManager]) {
      if (await exists(join(siteDir, name))) {
        lockFile = name;
        break;
      }
    }
    const scripts = await readScripts(join(siteDir, 'package.json'));
    const buildCommand = site?.buildCommand ?? (typeof scripts.build === 'string' ? `${packageManager} run build` : null);
    detected = {
      framework: site?.framework.name ?? null,
      packageManager,
      installCommand: installCommandFor(packageManager, lockFile !== null),
      buildCommand,
      outputDirectory: outputOf(site?.framework.id, site?.dist),
      lockFile,
    };
  }
  return {
    ...detected,
    installCommand: overrides.installCommand ?? detected.installCommand,
    buildCommand: overrides.buildCommand ?? detected.buildCommand,
    outputDirectory: overrides.outputDirectory ?? detected.outputDirectory,
  };
}

/** The detector's output folder, where a static host needs another one. */
function outputOf(frameworkId: string | undefined, dist: string | undefined): string | null {
  // Netlify serves Next.js through its runtime from .next; a static host can serve its static export only (`output: 'export'` writes out/).
  if (frameworkId === 'next') return 'out';
  return dist ? dist.replace(/^\.\/+/, '').replace(/\/+$/, '') : null;
}

async function readScripts(packageJson: string): Promise<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(packageJson, 'utf8'));
    const scripts = (parsed as { scripts?: unknown } | null)?.scripts;
    return scripts && typeof scripts === 'object' ? (scripts as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
