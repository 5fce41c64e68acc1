import type { Build } from './build.entity';
import { buildEvent, type BuildEventContext } from './build-events';

const BUILD: Parameters<typeof buildEvent>[0] = {
  id: 'bld_1',
  projectId: 'proj_1',
  workspaceId: 'ws_1',
  status: 'running',
  trigger: 'push',
  ref: 'main',
  branch: 'main',
  commitSha: 'a'.repeat(40),
  pullRequest: null,
  deploymentId: null,
  url: null,
  error: null,
};
const CTX: BuildEventContext = { projectSlug: 'blog', productionBranch: 'main', apiBaseUrl: 'https://api.example.test', now: new Date(0) };
const at = (status: Build['status'], more: Partial<typeof BUILD> = {}) => buildEvent({ ...BUILD, status, ...more }, CTX);

describe('buildEvent', () => {
  it('announces a running build as build.started, with its dashboard page', () => {
    expect(at('running')).toEqual({
      type: 'build.started',
      workspaceId: 'ws_1',
      timestamp: new Date(0),
      data: {
        projectId: 'proj_1',
        projectSlug: 'blog',
        buildId: 'bld_1',
        branch: 'main',
        commitSha: 'a'.repeat(40),
        trigger: 'push',
        pullRequest: null,
        production: true,
        dashboardUrl: 'https://api.example.test/app/w/ws_1/projects/proj_1/builds/bld_1',
      },
    });
  });

  it('announces ready as build.succeeded with its deployment and address, failed and timed_out as build.failed', () => {
    expect(at('ready', { deploymentId: 'dep_1', url: 'https://blog.sites.test' })).toMatchObject({
      type: 'build.succeeded',
      data: { deploymentId: 'dep_1', url: 'https://blog.sites.test' },
    });
    expect(at('failed', { error: 'npm run build exited with 1' })).toMatchObject({ type: 'build.failed', data: { error: 'npm run build exited with 1' } });
    expect(at('timed_out', { error: 'ran too long' })).toMatchObject({ type: 'build.failed', data: { error: 'ran too long' } });
  });

  it('announces nothing for a queued or canceled build', () => {
    expect(at('queued')).toBeNull();
    expect(at('canceled')).toBeNull();
  });

  it('is production only for the production branch, never for a pull request or a disconnected project', () => {
    expect(at('running', { branch: 'feature' })!.data).toMatchObject({ production: false });
    expect(at('running', { pullRequest: 7 })!.data).toMatchObject({ production: false });
    expect(at('running', { branch: null, ref: 'main' })!.data).toMatchObject({ production: true });
    expect(buildEvent({ ...BUILD }, { ...CTX, productionBranch: null })!.data).toMatchObject({ production: false });
  });
});
