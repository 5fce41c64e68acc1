import { createHash } from 'node:crypto';

import { blobKey } from '../../src/blobs/blob-keys';
import { ApiError } from '../../src/common/errors';
import { DeployService } from '../../src/deployments/deploy.service';
import { DeploymentsModule } from '../../src/deployments/deployments.module';
import { requestSlug } from '../../src/projects/request-slug';
import { StorageProvider } from '../../src/storage/storage.provider';
import { type MediumContext, newMediumService, tokenPrincipal } from '../helpers/medium';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * DeployService called directly, on a real PostgreSQL and real local storage, built by
 * Nest from DeploymentsModule and what it imports: no HTTP, no guard, no controller.
 * What the HTTP suites check through the API, checked here on the service itself.
 */
describe('DeployService (service, real PostgreSQL, no HTTP)', () => {
  let sut: DeployService;
  let ctx: MediumContext;

  beforeAll(async () => {
    ({ sut, ctx } = await newMediumService(DeployService, { imports: [DeploymentsModule] }));
  });
  afterAll(() => ctx?.close());

  const to = (slug: string) => ({ slug: requestSlug(slug, 'project_slug') });
  const page = (content: string) => ({ files: [{ path: 'index.html', content }] });
  const count = async (sql: string, params: unknown[]) => Number((await ctx.dataSource.query(`SELECT count(*) AS n FROM ${sql}`, params))[0].n);

  async function refusal(work: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
    const err = await work.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    return { status: e.getStatus(), code: e.code, message: e.message };
  }

  it('a lazy deploy creates the project, makes its first deployment live and stores each file once', async () => {
    const { workspaceId } = await ctx.newWorkspace();
    const content = `<h1>medium ${workspaceId}</h1>`;
    const { project, deployment } = await sut.deploy(tokenPrincipal(workspaceId), to('medium-first'), page(content));
    expect(project).toMatchObject({ slug: 'medium-first', workspaceId });
    const [row] = await ctx.dataSource.query('SELECT live_deployment_id FROM projects WHERE id = $1', [project.id]);
    expect(row.live_deployment_id).toBe(deployment.id);
    expect(deployment).toMatchObject({ projectId: project.id, version: 1, status: 'live', fileCount: 1 });
    const [file] = await ctx.dataSource.query('SELECT path, sha256 FROM deployment_files WHERE deployment_id = $1', [deployment.id]);
    expect(file).toEqual({ path: 'index.html', sha256: sha(content) });
    expect(await ctx.get(StorageProvider).exists(blobKey(sha(content)))).toBe(true);
  });

  it('a re-deploy of the same bytes counts the next version and stores nothing twice', async () => {
    const { workspaceId } = await ctx.newWorkspace();
    const content = `<h1>same ${workspaceId}</h1>`;
    const first = await sut.deploy(tokenPrincipal(workspaceId), to('medium-again'), page(content));
    const second = await sut.deploy(tokenPrincipal(workspaceId), to('medium-again'), page(content));
    expect(second.project.id).toBe(first.project.id);
    expect(second.deployment.version).toBe(2);
    expect(await count('blobs WHERE sha256 = $1', [sha(content)])).toBe(1);
    expect(await count('projects WHERE workspace_id = $1', [workspaceId])).toBe(1);
  });

  it('goes to the caller’s own project only: another workspace’s slug is taken, a bound token stays on its project', async () => {
    const a = await ctx.newWorkspace();
    const b = await ctx.newWorkspace();
    const { project } = await sut.deploy(tokenPrincipal(a.workspaceId), to('medium-owned'), page('a'));
    const before = await count('deployments', []);
    expect(await refusal(sut.deploy(tokenPrincipal(b.workspaceId), to('medium-owned'), page('b')))).toEqual({
      status: 409,
      code: 'slug_taken',
      message: 'slug "medium-owned" is already taken',
    });
    expect(await refusal(sut.deploy(tokenPrincipal(a.workspaceId, 'proj_other'), to('medium-owned'), page('c')))).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    expect(await refusal(sut.deploy(tokenPrincipal(a.workspaceId, project.id), to('medium-new'), page('d')))).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'This token is bound to one project and cannot create project "medium-new"',
    });
    expect(await refusal(sut.deploy(tokenPrincipal(a.workspaceId), to('medium--2'), page('e')))).toMatchObject({ status: 400, code: 'invalid_slug' });
    expect(await count('deployments', [])).toBe(before);
    expect(await count('projects WHERE slug = $1', ['medium-new'])).toBe(0);
    // The bound token's own project takes its deploys.
    expect((await sut.deploy(tokenPrincipal(a.workspaceId, project.id), to('medium-owned'), page('f'))).deployment.version).toBe(2);
  });

  it('concurrent lazy deploys to one new slug create one project and give each deploy its own version', async () => {
    const { workspaceId } = await ctx.newWorkspace();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => sut.deploy(tokenPrincipal(workspaceId), to('medium-race'), page(`race ${i}`))));
    expect(new Set(results.map((r) => r.project.id)).size).toBe(1);
    expect(results.map((r) => r.deployment.version).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await count('projects WHERE workspace_id = $1', [workspaceId])).toBe(1);
  });

  it('refuses a digest entry the workspace never uploaded, naming it, and creates nothing', async () => {
    const { workspaceId } = await ctx.newWorkspace();
    const unknown = sha(`never uploaded ${workspaceId}`);
    const err = await sut
      .deploy(tokenPrincipal(workspaceId), to('medium-digest'), { files: [{ path: 'a.txt', sha256: unknown, size: 10 }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).getStatus()).toBe(400);
    expect((err as ApiError).body()).toMatchObject({ code: 'missing_blobs', missing: [unknown] });
    expect(await count('projects WHERE workspace_id = $1', [workspaceId])).toBe(0);
  });
});
