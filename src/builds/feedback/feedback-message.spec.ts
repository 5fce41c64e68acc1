import { buildPageUrl, commitStatusOf, type FeedbackBuild, type FeedbackContext, pullRequestComment, statusContext } from './feedback-message';

const ctx: FeedbackContext = { product: 'statichost', projectSlug: 'shop', liveUrl: 'https://shop.sites.example', apiBaseUrl: 'https://api.example' };
const build = (over: Partial<FeedbackBuild>): FeedbackBuild => ({
  id: 'bld_1',
  projectId: 'prj_1',
  workspaceId: 'ws_1',
  status: 'running',
  commitSha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
  pullRequest: null,
  url: null,
  trigger: 'push',
  ...over,
});
const PAGE = 'https://api.example/app/w/ws_1/projects/prj_1/builds/bld_1';

describe('forge feedback messages', () => {
  it('links the dashboard’s build page', () => {
    expect(buildPageUrl('https://api.example', build({}))).toBe(PAGE);
  });

  it('names the status after the product and the project', () => {
    expect(statusContext('statichost', 'shop')).toBe('statichost/shop');
    expect(statusContext('My Host!', 'shop')).toBe('my-host-/shop');
  });

  it('is pending while queued or running, pointing at the build page', () => {
    expect(commitStatusOf(build({ status: 'running' }), ctx)).toEqual({
      state: 'pending',
      targetUrl: PAGE,
      description: 'Building',
      context: 'statichost/shop',
    });
    expect(commitStatusOf(build({ status: 'queued' }), ctx).state).toBe('pending');
  });

  it('succeeds with the alias or the live site as its target', () => {
    expect(commitStatusOf(build({ status: 'ready', url: 'https://pr-7--shop.sites.example' }), ctx)).toMatchObject({
      state: 'success',
      targetUrl: 'https://pr-7--shop.sites.example',
      description: 'Preview ready',
    });
    expect(commitStatusOf(build({ status: 'ready', url: 'https://shop.sites.example/' }), ctx)).toMatchObject({
      state: 'success',
      targetUrl: 'https://shop.sites.example/',
      description: 'Deployed to the live site',
    });
  });

  it('fails for a failed, timed out or canceled build, pointing at the build page', () => {
    expect(commitStatusOf(build({ status: 'failed' }), ctx)).toMatchObject({ state: 'failure', targetUrl: PAGE, description: 'Build failed' });
    expect(commitStatusOf(build({ status: 'timed_out' }), ctx)).toMatchObject({ state: 'failure', description: 'Build timed out' });
    expect(commitStatusOf(build({ status: 'canceled' }), ctx)).toMatchObject({ state: 'failure', description: 'Build canceled' });
  });

  it('writes the comment with the preview URL only once ready, the commit and the result', () => {
    const building = pullRequestComment(build({ status: 'running', pullRequest: 7 }), ctx);
    expect(building).toContain('| Result | ⏳ Building |');
    expect(building).toContain('| Preview | — |');
    expect(building).toContain('| Commit | `ec26c3e57ca3` |');
    expect(building).toContain(`[bld_1](${PAGE})`);
    const ready = pullRequestComment(build({ status: 'ready', pullRequest: 7, url: 'https://pr-7--shop.sites.example' }), ctx);
    expect(ready).toContain('| Preview | https://pr-7--shop.sites.example |');
    expect(ready).toContain('| Result | ✅ Ready |');
  });
});
