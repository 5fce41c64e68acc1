import { Reflector } from '@nestjs/core';

import { AUDIT_DECLARATION, type AuditDeclaration } from '../../src/openapi/endpoint';
import { startTestApp, type TestApp } from '../helpers/app';
import { discoverRoutes } from '../helpers/routes';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const ACTION = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;

/**
 * Every route that can change something says what it writes to the audit log (issue 32):
 * the action of its entry (`@Endpoint({ audit: 'project.deleted' })`), or why it changes
 * nothing a security review would ask about (`audit: { none: '…' }`). A new mutating route
 * without either fails here, the same way the permission snapshot catches a route
 * without access rules. test/audit/audit-entries.e2e-spec.ts checks the entries are written.
 */
describe('audit log coverage (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  function declarations() {
    const reflector = new Reflector();
    return discoverRoutes(t.app).map((r) => ({
      route: `${r.method} ${r.path}`,
      mutating: MUTATING.has(r.method),
      audit: reflector.get<AuditDeclaration | undefined>(AUDIT_DECLARATION, r.handler),
    }));
  }

  it('finds the app’s mutating routes (a scan that finds nothing would pass everything)', () => {
    const mutating = declarations().filter((d) => d.mutating);
    expect(mutating.length).toBeGreaterThanOrEqual(50);
    expect(mutating.map((d) => d.route)).toEqual(expect.arrayContaining(['DELETE /projects/:projectId', 'POST /access-tokens']));
  });

  it('has every POST, PUT, PATCH and DELETE route declare its audit action or why it has none', () => {
    const undeclared = declarations()
      .filter((d) => d.mutating && d.audit === undefined)
      .map((d) => d.route);
    expect(undeclared).toEqual([]);
  });

  it('names actions `<target type>.<past-tense verb>` and gives a reason for each route without one', () => {
    const malformed = declarations()
      .filter((d) => d.audit !== undefined)
      .filter((d) => (typeof d.audit === 'string' ? !ACTION.test(d.audit) : d.audit!.none.trim().length < 10))
      .map((d) => `${d.route}: ${JSON.stringify(d.audit)}`);
    expect(malformed).toEqual([]);
  });
});
