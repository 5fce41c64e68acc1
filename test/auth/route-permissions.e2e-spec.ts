import { RequestMethod } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';

import { routeAccess } from '../../src/access/authorize';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * Who may reach every route of the real app, read from the same decorators the
 * guard enforces (through the guard's own `routeAccess`). A change in who can call
 * an endpoint changes this snapshot, so it shows up in review. After adding or
 * changing a route on purpose: `npx jest test/auth/route-permissions -u`.
 */
describe('Route permissions (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  function routes(): { route: string; rule: string }[] {
    const discovery = new DiscoveryService(t.app.get(ModulesContainer));
    const scanner = new MetadataScanner();
    const reflector = new Reflector();
    const found: { route: string; rule: string }[] = [];
    for (const wrapper of discovery.getControllers()) {
      const controller = wrapper.metatype as Function | undefined;
      if (!controller || !wrapper.instance) continue;
      const base = [Reflect.getMetadata(PATH_METADATA, controller) ?? ''].flat() as string[];
      const prototype = Object.getPrototypeOf(wrapper.instance);
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as Function;
        const own = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (own === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        const access = routeAccess(reflector, handler);
        // Route-level guards besides the global one (e.g. the internal-callers guard) are part of who may call.
        const guards = ((Reflect.getMetadata(GUARDS_METADATA, handler) ?? []) as Function[]).map((g) => g.name);
        const rule = access.isPublic
          ? ['public', ...guards.map((g) => `guard=${g}`)].join(' ')
          : [
              `credential=${access.kind ?? 'any'}`,
              `scopes=${access.scopes.join('+') || '-'}`,
              `roles=${access.roles.join('|') || '-'}`,
              `workspace=${access.workspaceOptional ? 'optional' : 'required'}`,
              ...(access.workspaceWide ? ['project-bound-token=denied'] : []),
              ...(access.workspaceIn ? [`workspace-in=${access.workspaceIn}`] : []),
              ...(access.roleRefusal ? [`role-refusal=${access.roleRefusal.code}`] : []),
            ].join(' ');
        for (const prefix of base) {
          for (const path of [own].flat()) {
            const full = `/${[prefix, path]
              .map((p) => p.replace(/^\/+|\/+$/g, ''))
              .filter(Boolean)
              .join('/')}`;
            found.push({ route: `${method.padEnd(6)} ${full}`, rule });
          }
        }
      }
    }
    // By path, then method, so a route's methods sit together.
    const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return found.sort((a, b) => byCodePoint(a.route.slice(7), b.route.slice(7)) || byCodePoint(a.route, b.route));
  }

  it('match the reviewed snapshot', () => {
    const found = routes();
    // Guards against a scan that silently finds nothing (the snapshot would then be empty too).
    expect(found).toEqual(
      expect.arrayContaining([
        { route: 'GET    /v1/me', rule: 'credential=token scopes=- roles=- workspace=required' },
        { route: 'GET    /health', rule: 'public' },
      ]),
    );
    expect(new Set(found.map((r) => r.route)).size).toBe(found.length);
    expect(found.map((r) => `${r.route}  ${r.rule}`)).toMatchSnapshot();
  });

  it('document every identity route in /docs/openapi.json', async () => {
    const doc = (await t.http().get('/docs/openapi.json').expect(200)).body;
    const identity = routes().filter((r) => /^\S+\s+\/(auth|v1\/me|workspaces|invitations|access-tokens)\b/.test(r.route));
    expect(identity.length).toBeGreaterThanOrEqual(18);
    for (const { route } of identity) {
      const [method, path] = route.split(/\s+/);
      const operation = doc.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
      expect({ route, documented: Boolean(operation?.summary) }).toEqual({ route, documented: true });
    }
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining([
        'RegisterDto',
        'RegisterView',
        'CreateAccessTokenDto',
        'CreatedAccessTokenView',
        'TokenContextView',
        'MemberView',
        'WorkspaceView',
      ]),
    );
    expect(doc.components.schemas.CreateAccessTokenDto.properties).toHaveProperty('expires_at');
  });
});
