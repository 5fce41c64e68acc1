import { ApiError } from '../../src/common/errors';
import { DeployPreflightModule } from '../../src/deploy-preflight/preflight.module';
import { DeployPreflightService } from '../../src/deploy-preflight/preflight.service';
import { type DeployRequest, DeployService } from '../../src/deployments/deploy.service';
import { requestSlug } from '../../src/projects/request-slug';
import { type MediumContext, newMediumService, tokenPrincipal } from '../helpers/medium';

/**
 * The preflight's promise, on the services themselves (real PostgreSQL, no HTTP): for a
 * body the deploy refuses, the preflight refuses it with the same status, code and
 * message, and for one the deploy takes, it answers what the deploy then does.
 */
describe('DeployPreflightService beside DeployService (service, real PostgreSQL, no HTTP)', () => {
  let sut: DeployPreflightService;
  let deploys: DeployService;
  let ctx: MediumContext;
  let mine: string;
  let theirs: string;
  let mineProjectId: string;

  beforeAll(async () => {
    // Two projects a workspace and 1000-byte files: the quota refusals are in reach.
    const plans = JSON.stringify({ free: { projects: 2, deploymentsPerMonth: 3, storageBytes: null, maxFileBytes: 1000, maxTtl: '30d' } });
    ({ sut, ctx } = await newMediumService(DeployPreflightService, { imports: [DeployPreflightModule], env: { PLANS_JSON: plans } }));
    deploys = ctx.get(DeployService);
    mine = (await ctx.newWorkspace()).workspaceId;
    theirs = (await ctx.newWorkspace()).workspaceId;
    await deploys.deploy(tokenPrincipal(theirs), { slug: requestSlug('theirs', 'project_slug') }, page('theirs'));
    mineProjectId = (await deploys.deploy(tokenPrincipal(mine), { slug: requestSlug('mine', 'project_slug') }, page('mine'))).project.id;
  });
  afterAll(() => ctx?.close());

  function page(content: string): DeployRequest {
    return { files: [{ path: 'index.html', content }] };
  }

  async function outcome(work: () => Promise<unknown>): Promise<{ status: number; code: string; message: string } | 'ok'> {
    try {
      await work();
      return 'ok';
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return { status: err.getStatus(), code: err.code, message: err.message };
    }
  }

  it.each([
    ['another workspace’s slug', 'theirs', undefined, page('x')],
    ['a token bound to another project', 'mine', 'proj_other', page('x')],
    ['a bound token creating a project', 'brand-new', 'bound', page('x')],
    ['a new slug today’s rules refuse', 'new--2', undefined, page('x')],
    ['a type change', 'mine', undefined, { ...page('x'), type: 'static_site' } as DeployRequest],
    ['a file over the plan’s size', 'mine', undefined, page('x'.repeat(1001))],
  ])('refuses %s as the deploy does', async (_case, slug, bound, body) => {
    const principal = tokenPrincipal(mine, bound === 'bound' ? mineProjectId : bound);
    const preflight = await outcome(() => sut.check(principal, requestSlug(slug, 'project_slug'), body));
    expect(preflight).not.toBe('ok');
    expect(await outcome(() => deploys.deploy(principal, { slug: requestSlug(slug, 'project_slug') }, body))).toEqual(preflight);
  });

  it('answers what the deploy then does: a new project, then the project the deploy made', async () => {
    const principal = tokenPrincipal(mine);
    const slug = requestSlug('second', 'project_slug');
    expect(await sut.check(principal, slug, page('2'))).toMatchObject({ projectId: null, createsProject: true, workspaceId: mine });
    const { project } = await deploys.deploy(principal, { slug }, page('2'));
    expect(await sut.check(principal, slug, page('3'))).toMatchObject({ projectId: project.id, createsProject: false });
    // The plan's two projects are taken: a third is refused by both, alike.
    const third = requestSlug('third', 'project_slug');
    const refused = await outcome(() => sut.check(principal, third, page('3')));
    expect(refused).toMatchObject({ status: 402 });
    expect(await outcome(() => deploys.deploy(principal, { slug: third }, page('3')))).toEqual(refused);
  });
});
