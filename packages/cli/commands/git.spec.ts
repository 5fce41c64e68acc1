import { connectBody, type GitSettings } from './git';

const current = {
  projectId: 'proj_1',
  repository: 'https://git.example.com/a/site.git',
  productionBranch: 'trunk',
  rootDirectory: 'site',
  installCommand: 'pnpm install',
  buildCommand: 'pnpm build',
  outputDirectory: 'dist',
  nodeVersion: '22',
  hasAccessToken: true,
  webhookUrl: 'http://localhost:3000/hooks/git/proj_1',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
} as GitSettings;

describe('connectBody (the PUT body of `statichost git connect`)', () => {
  it('a first connection: the flags given, main as the branch, the rest unset (detected at build time)', () => {
    expect(connectBody('https://git.example.com/a/b.git', { buildCommand: 'node build.js' }, null)).toEqual({
      repository: 'https://git.example.com/a/b.git',
      productionBranch: 'main',
      rootDirectory: '',
      installCommand: null,
      buildCommand: 'node build.js',
      outputDirectory: null,
      nodeVersion: null,
    });
  });

  it('a change keeps every setting whose flag is absent (PUT replaces them all)', () => {
    expect(connectBody(current.repository, { output: 'public' }, current)).toEqual({
      repository: current.repository,
      productionBranch: 'trunk',
      rootDirectory: 'site',
      installCommand: 'pnpm install',
      buildCommand: 'pnpm build',
      outputDirectory: 'public',
      nodeVersion: '22',
    });
  });

  it('an empty flag clears its setting; --root "" is the repository’s root', () => {
    const body = connectBody(current.repository, { buildCommand: '', root: '', branch: 'main' }, current);
    expect(body).toMatchObject({ buildCommand: null, rootDirectory: '', productionBranch: 'main', installCommand: 'pnpm install' });
  });

  it('never carries the access token: absent keeps the stored one', () => {
    expect(connectBody(current.repository, {}, current)).not.toHaveProperty('accessToken');
  });
});
