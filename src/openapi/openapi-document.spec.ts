import { routeAccessWith } from '../access/route-access.fixture';
import { accessErrors, accessSentence } from './openapi-document';

const base = routeAccessWith();

describe('what the OpenAPI document says about a route’s access', () => {
  it('says a public route needs nothing and can give no guard error', () => {
    expect(accessSentence({ ...base, isPublic: true })).toBe('**Access:** public, no credential.');
    expect(accessErrors({ ...base, isPublic: true }, true)).toEqual({});
  });

  it('names the scope, the credential kind and the workspace header', () => {
    expect(accessSentence({ ...base, kind: 'token', scopes: ['deploy'] })).toBe('**Access:** an API token (`sk_live_…`) only; scope `deploy`.');
    expect(accessSentence({ ...base, scopes: ['read'] })).toBe(
      '**Access:** an API token or a dashboard JWT; scope `read` (a JWT user’s role must grant it); with a JWT, send X-Workspace-Id.',
    );
    expect(accessSentence({ ...base, kind: 'user', workspaceOptional: true })).toBe(
      '**Access:** a dashboard JWT only; no scope required; with a JWT, X-Workspace-Id is optional.',
    );
    expect(accessSentence({ ...base, scopes: ['admin'], workspaceWide: true })).toContain('a project-bound token gets 403');
  });

  it('lists the guard’s codes that the route’s metadata makes possible, and only those', () => {
    expect(accessErrors({ ...base, kind: 'token' }, false)).toEqual({
      400: ['invalid_workspace_header'],
      401: ['unauthorized'],
      403: ['workspace_mismatch', 'wrong_credential_kind'],
    });
    expect(accessErrors({ ...base, scopes: ['admin'], roles: ['owner'], workspaceWide: true }, true)).toEqual({
      400: ['invalid_workspace_header', 'workspace_required'],
      401: ['unauthorized'],
      403: ['workspace_mismatch', 'not_a_member', 'two_factor_required', 'insufficient_scope', 'insufficient_role', 'project_bound_token'],
      404: ['not_found'],
    });
    expect(accessErrors({ ...base, kind: 'user', workspaceOptional: true }, false)[400]).toEqual(['invalid_workspace_header']);
  });
});
