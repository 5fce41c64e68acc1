import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { type BuildOverrides, detectBuild, installCommandFor } from './detect';

const NONE: BuildOverrides = { installCommand: null, buildCommand: null, outputDirectory: null };

/** Small fixture folders written by the test, read by the real detector. */
describe('detectBuild', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'detect-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  let n = 0;
  async function site(files: Record<string, string | object>): Promise<string> {
    const dir = join(root, `site-${++n}`);
    await mkdir(dir, { recursive: true });
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), typeof content === 'string' ? content : JSON.stringify(content));
    }
    return dir;
  }
  const detect = async (files: Record<string, string | object>, overrides = NONE) => {
    const dir = await site(files);
    return detectBuild(dir, overrides);
  };

  it('Vite with npm (package-lock.json): npm ci, npm run build, dist', async () => {
    expect(await detect({ 'package.json': { scripts: { build: 'vite build' }, devDependencies: { vite: '^5.0.0' } }, 'package-lock.json': '{}' })).toEqual({
      framework: 'Vite',
      packageManager: 'npm',
      installCommand: 'npm ci --prefer-offline --no-audit --no-fund',
      buildCommand: 'npm run build',
      outputDirectory: 'dist',
      lockFile: 'package-lock.json',
    });
  });

  it('Astro with pnpm (pnpm-lock.yaml)', async () => {
    expect(await detect({ 'package.json': { scripts: { build: 'astro build' }, dependencies: { astro: '^4.0.0' } }, 'pnpm-lock.yaml': '' })).toMatchObject({
      framework: 'Astro',
      packageManager: 'pnpm',
      installCommand: 'pnpm install --prefer-offline',
      buildCommand: 'pnpm run build',
      outputDirectory: 'dist',
      lockFile: 'pnpm-lock.yaml',
    });
  });

  it('Eleventy with yarn (yarn.lock): _site', async () => {
    expect(
      await detect({ 'package.json': { scripts: { build: 'eleventy' }, devDependencies: { '@11ty/eleventy': '^2.0.0' } }, 'yarn.lock': '' }),
    ).toMatchObject({
      framework: 'Eleventy',
      packageManager: 'yarn',
      installCommand: 'yarn install',
      buildCommand: 'yarn run build',
      outputDirectory: '_site',
      lockFile: 'yarn.lock',
    });
  });

  it('a plain static folder (no package.json): nothing to install or build, the folder is the output', async () => {
    expect(await detect({ 'index.html': '<h1>hi</h1>', 'css/site.css': 'body{}' })).toEqual({
      framework: null,
      packageManager: null,
      installCommand: null,
      buildCommand: null,
      outputDirectory: '',
      lockFile: null,
    });
  });

  it('Docusaurus: build', async () => {
    expect(await detect({ 'package.json': { scripts: { build: 'docusaurus build' }, dependencies: { '@docusaurus/core': '^3.0.0' } } })).toMatchObject({
      framework: 'Docusaurus',
      packageManager: 'npm',
      installCommand: 'npm install --prefer-offline --no-audit --no-fund',
      outputDirectory: 'build',
      lockFile: null,
    });
  });

  it('Next.js: its static export, out (not .next, which only a Next.js server serves)', async () => {
    expect(
      await detect({
        'package.json': { scripts: { build: 'next build' }, dependencies: { next: '^14.0.0' } },
        'next.config.js': 'module.exports = { output: "export" }',
      }),
    ).toMatchObject({ framework: 'Next.js', buildCommand: 'npm run build', outputDirectory: 'out' });
  });

  it('SvelteKit with the static adapter: build', async () => {
    expect(
      await detect({
        'package.json': {
          scripts: { build: 'vite build' },
          devDependencies: { '@sveltejs/kit': '^2.0.0', '@sveltejs/adapter-static': '^3.0.0', vite: '^5.0.0' },
        },
      }),
    ).toMatchObject({ framework: 'SvelteKit', outputDirectory: 'build' });
  });

  it('no framework but a build script: `<manager> run build`, output found after the build', async () => {
    expect(await detect({ 'package.json': { scripts: { build: 'node build.js' } }, 'package-lock.json': '{}' })).toMatchObject({
      framework: null,
      packageManager: 'npm',
      buildCommand: 'npm run build',
      outputDirectory: null,
    });
    expect(await detect({ 'package.json': { name: 'no-scripts' } })).toMatchObject({ buildCommand: null, outputDirectory: null });
  });

  it('the project’s settings override what is detected, one by one', async () => {
    const files = { 'package.json': { scripts: { build: 'vite build' }, devDependencies: { vite: '^5.0.0' } }, 'package-lock.json': '{}' };
    expect(await detect(files, { installCommand: 'npm i', buildCommand: 'make site', outputDirectory: 'public/site' })).toMatchObject({
      framework: 'Vite',
      installCommand: 'npm i',
      buildCommand: 'make site',
      outputDirectory: 'public/site',
    });
    expect(await detect(files, { ...NONE, buildCommand: 'vite build --mode staging' })).toMatchObject({
      installCommand: 'npm ci --prefer-offline --no-audit --no-fund',
      buildCommand: 'vite build --mode staging',
      outputDirectory: 'dist',
    });
  });

  it('a broken package.json is no crash: npm, no build command', async () => {
    expect(await detect({ 'package.json': '{ not json' })).toMatchObject({ packageManager: 'npm', buildCommand: null });
  });

  it('detects the site in a subfolder of the repository (rootDirectory)', async () => {
    const dir = await site({ 'web/package.json': { scripts: { build: 'vite build' }, devDependencies: { vite: '^5.0.0' } }, 'web/yarn.lock': '' });
    expect(await detectBuild(join(dir, 'web'), NONE)).toMatchObject({
      framework: 'Vite',
      packageManager: 'yarn',
      lockFile: 'yarn.lock',
      outputDirectory: 'dist',
    });
  });
});

describe('installCommandFor', () => {
  it('npm ci with a lock file, npm install without', () => {
    expect(installCommandFor('npm', true)).toMatch(/^npm ci /);
    expect(installCommandFor('npm', false)).toMatch(/^npm install /);
  });
});
