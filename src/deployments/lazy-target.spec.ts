import { ApiError } from '../common/errors';
import { type Slug } from '../shared/slug';
import { lazyTarget } from './lazy-target';

const slug = (s: string) => s as Slug;
const mine = { id: 'proj_mine', workspaceId: 'ws_a' };
const theirs = { id: 'proj_theirs', workspaceId: 'ws_b' };
const member = { workspaceId: 'ws_a' };
const bound = (projectId: string) => ({ workspaceId: 'ws_a', projectId });

function refusal(run: () => unknown): { status: number; code: string; message: string } {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    return { status: e.getStatus(), code: e.code, message: e.message };
  }
  throw new Error('expected a refusal');
}

describe('lazyTarget: the project a lazy deploy goes to', () => {
  it('deploys to the workspace’s own project under the slug', () => {
    expect(lazyTarget(member, slug('site'), mine)).toEqual({ project: mine });
  });

  it('deploys to the project a bound token is bound to', () => {
    expect(lazyTarget(bound('proj_mine'), slug('site'), mine)).toEqual({ project: mine });
  });

  it('answers another workspace’s project as a taken slug, whoever asks (never confirming whose it is)', () => {
    expect(refusal(() => lazyTarget(member, slug('site'), theirs))).toEqual({ status: 409, code: 'slug_taken', message: 'slug "site" is already taken' });
    expect(refusal(() => lazyTarget(bound('proj_theirs'), slug('site'), theirs))).toMatchObject({ status: 409, code: 'slug_taken' });
  });

  it('refuses a bound token another project of its workspace', () => {
    expect(refusal(() => lazyTarget(bound('proj_other'), slug('site'), mine))).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'This token is bound to another project and cannot deploy to "site"',
    });
  });

  it('creates a project for a free slug that today’s rules accept', () => {
    expect(lazyTarget(member, slug('new-site'), null)).toEqual({ create: 'new-site' });
    expect(lazyTarget(member, slug('new-site'), undefined)).toEqual({ create: 'new-site' });
  });

  it('refuses a bound token a new project, before looking at the slug', () => {
    expect(refusal(() => lazyTarget(bound('proj_mine'), slug('shop--2'), null))).toEqual({
      status: 403,
      code: 'forbidden',
      message: 'This token is bound to one project and cannot create project "shop--2"',
    });
  });

  it('keeps a slug taken under older rules for its project, but refuses it for a new one', () => {
    const legacy = { ...mine, slug: 'old--style' };
    expect(lazyTarget(member, slug('old--style'), legacy)).toEqual({ project: legacy });
    expect(refusal(() => lazyTarget(member, slug('old--style'), null))).toEqual({
      status: 400,
      code: 'invalid_slug',
      message: 'project_slug: slug "old--style" is refused: "--" is reserved for preview addresses (<slug>--<version>)',
    });
  });
});
