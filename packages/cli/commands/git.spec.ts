import { CliError } from '../context';
import { connectBody, describeSettings, forgeFlags, type GitSettings } from './git';

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

describe('forgeFlags (--forge and --[no-]build-fork-pull-requests of `git connect`)', () => {
  it('absent flags stay out of the body, so the API keeps those settings', () => {
    expect(forgeFlags({})).toEqual({});
  });

  it('auto is null (inferred from the host); a forge name is kept; fork builds on and off', () => {
    expect(forgeFlags({ forge: 'auto', buildForkPullRequests: false })).toEqual({ forge: null, buildForkPullRequests: false });
    expect(forgeFlags({ forge: 'Forgejo', buildForkPullRequests: true })).toEqual({ forge: 'forgejo', buildForkPullRequests: true });
  });

  it('an unknown forge is a usage error naming the choices', () => {
    expect(() => forgeFlags({ forge: 'bitbucket' })).toThrow(new CliError('--forge: "bitbucket" is not one of github, gitlab, gitea, forgejo, auto', 2));
  });
});

describe('describeSettings', () => {
  it('says whether a webhook secret is set (never the secret), whether forks are built, and the forge', () => {
    const text = describeSettings({ ...current, hasWebhookSecret: false, buildForkPullRequests: false, forge: null });
    expect(text).toMatch(/Webhook secret: +none: deliveries are refused \(statichost git webhook-secret creates one\)/);
    expect(text).toMatch(/Fork pull requests: +not built/);
    expect(text).toMatch(/Forge: +\(from the repository’s host\)/);
    const set = describeSettings({ ...current, hasWebhookSecret: true, buildForkPullRequests: true, forge: 'gitea' });
    expect(set).toMatch(/Webhook secret: +set \(never shown\)/);
    expect(set).toMatch(/Fork pull requests: +built, without the environment variables/);
    expect(set).toMatch(/Forge: +gitea/);
  });
});
