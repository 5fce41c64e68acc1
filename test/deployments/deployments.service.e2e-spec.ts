import { ApiError } from '../../src/common/errors';
import { Clock } from '../../src/common/time';
import { DeployService } from '../../src/deployments/deploy.service';
import { DeploymentsService } from '../../src/deployments/deployments.service';
import { ProjectsService } from '../../src/projects/projects.service';
import { requestSlug } from '../../src/projects/request-slug';
import type { Principal } from '../../src/shared/principal';
import { DEFAULT_TTL, requestTtl } from '../../src/shared/ttl';
import { NO_FREE_QUOTAS, startTestApp, type TestApp } from '../helpers/app';
import { registerUser } from '../helpers/identity';

/**
 * The live pointer's rules on the services themselves (real repositories, real
 * PostgreSQL): a deploy that publishes and a promote both go through
 * DeploymentsService.makeLive; archive and expiry are refused or applied here,
 * whatever route calls them.
 */
describe('DeploymentsService: promote, archive and the live pointer (service, real PostgreSQL)', () => {
  let t: TestApp;
  let deploys: DeployService;
  let deployments: DeploymentsService;
  let projects: ProjectsService;
  let clock: Clock;
  let owner: Principal;

  beforeAll(async () => {
    t = await startTestApp({ env: { PLANS_JSON: NO_FREE_QUOTAS } });
    deploys = t.app.get(DeployService);
    deployments = t.app.get(DeploymentsService);
    projects = t.app.get(ProjectsService);
    clock = t.app.get(Clock);
    const user = await registerUser(t);
    owner = { kind: 'user', workspaceId: user.workspaceId, userId: user.userId, role: 'owner', scopes: ['deploy', 'read', 'delete', 'admin'] };
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(() => t.close());

  const files = (text: string) => [{ path: 'index.html', content: `<h1>${text}</h1>` }];
  // The controller's parse, as a request would get it.
  const deploy = (slug: string, text: string, { ttl, ...extra }: { publish?: boolean; ttl?: string } = {}) =>
    deploys.deploy(
      owner,
      { slug: requestSlug(slug, 'project_slug') },
      { files: files(text), ...extra, ttl: ttl === undefined ? undefined : requestTtl(ttl, 'ttl') },
    );
  const statusOf = async (projectId: string, id: string) => (await deployments.get(owner, projectId, id)).deployment.status;
  const liveOf = async (projectId: string) => (await projects.findVisible(owner, projectId)).liveDeploymentId;

  async function refusal(work: Promise<unknown>): Promise<{ status: number; code: string }> {
    const err = await work.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return { status: (err as ApiError).getStatus(), code: (err as ApiError).code };
  }

  it('a lazy deploy creates its project with the create form defaults (one way to create a project)', async () => {
    const { project } = await deploy('svc-lazy', 'v1');
    expect(project).toMatchObject({ slug: 'svc-lazy', name: 'svc-lazy', type: 'static_file', defaultTtl: DEFAULT_TTL, gateType: 'none', passwordHash: null });
  });

  it('a published deploy becomes live and archives the previous live one', async () => {
    const first = await deploy('svc-publish', 'v1');
    const second = await deploy('svc-publish', 'v2');
    expect(await liveOf(second.project.id)).toBe(second.deployment.id);
    expect(await statusOf(second.project.id, first.deployment.id)).toBe('archived');
    expect(await statusOf(second.project.id, second.deployment.id)).toBe('live');
  });

  it('an unpublished deploy leaves the live pointer where it was', async () => {
    const first = await deploy('svc-unpublished', 'v1');
    const preview = await deploy('svc-unpublished', 'v2', { publish: false });
    expect(preview.deployment.status).toBe('archived');
    expect(await liveOf(first.project.id)).toBe(first.deployment.id);
  });

  it('promote makes an archived deployment live and archives the one that was', async () => {
    const first = await deploy('svc-promote', 'v1');
    const second = await deploy('svc-promote', 'v2');
    const promoted = await deployments.promote(owner, first.project.id, first.deployment.id);
    expect(promoted.deployment.status).toBe('live');
    expect(await liveOf(first.project.id)).toBe(first.deployment.id);
    expect(await statusOf(first.project.id, first.deployment.id)).toBe('live');
    expect(await statusOf(first.project.id, second.deployment.id)).toBe('archived');
  });

  it('promoting the live deployment changes nothing', async () => {
    const only = await deploy('svc-promote-live', 'v1');
    const promoted = await deployments.promote(owner, only.project.id, only.deployment.id);
    expect(promoted.deployment.status).toBe('live');
    expect(await liveOf(only.project.id)).toBe(only.deployment.id);
  });

  it('promote brings back a site whose live deployment was archived', async () => {
    const first = await deploy('svc-offline', 'v1');
    await deployments.archive(owner, first.project.id, first.deployment.id);
    expect(await liveOf(first.project.id)).toBeNull();
    await deployments.promote(owner, first.project.id, first.deployment.id);
    expect(await liveOf(first.project.id)).toBe(first.deployment.id);
    expect(await statusOf(first.project.id, first.deployment.id)).toBe('live');
  });

  it('archiving an archived deployment keeps the live one live', async () => {
    const first = await deploy('svc-archive-old', 'v1');
    const second = await deploy('svc-archive-old', 'v2');
    const archived = await deployments.archive(owner, first.project.id, first.deployment.id);
    expect(archived.deployment.status).toBe('archived');
    expect(await liveOf(first.project.id)).toBe(second.deployment.id);
  });

  it('an expired deployment (by time, before the sweep) can be neither promoted nor archived', async () => {
    const old = await deploy('svc-expired', 'v1', { ttl: '1h' });
    await deploy('svc-expired', 'v2');
    jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 2 * 3_600_000));
    expect(await refusal(deployments.promote(owner, old.project.id, old.deployment.id))).toEqual({ status: 409, code: 'deployment_expired' });
    expect(await refusal(deployments.archive(owner, old.project.id, old.deployment.id))).toEqual({ status: 409, code: 'deployment_expired' });
  });

  it('another project’s deployment is a 404 for promote and archive', async () => {
    const a = await deploy('svc-other-a', 'v1');
    const b = await deploy('svc-other-b', 'v1');
    expect(await refusal(deployments.promote(owner, a.project.id, b.deployment.id))).toEqual({ status: 404, code: 'not_found' });
    expect(await refusal(deployments.archive(owner, a.project.id, b.deployment.id))).toEqual({ status: 404, code: 'not_found' });
  });
});
