import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { startTestApp, type TestApp } from '../helpers/app';
import { ResponseValidator } from '../helpers/openapi-responses';

type Json = Record<string, any>;
const root = join(__dirname, '..', '..');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Field names the spec gives in snake_case; every other field is camelCase (docs/decisions.md, "Field names"). */
const SPEC_SNAKE_FIELDS = ['default_ttl', 'gate_type', 'custom_domain', 'size_bytes', 'expires_at', 'project_slug'];

function operations(document: Json): { path: string; method: string; op: Json }[] {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Json)[m]).map((method) => ({ path, method, op: (item as Json)[method] as Json })),
  );
}

function walk(node: unknown, visit: (schema: Json, at: string) => void, at = ''): void {
  if (Array.isArray(node)) return node.forEach((n, i) => walk(n, visit, `${at}/${i}`));
  if (typeof node !== 'object' || node === null) return;
  visit(node as Json, at);
  for (const [k, v] of Object.entries(node)) walk(v, visit, `${at}/${k}`);
}

/**
 * The document the running service serves at /docs/openapi.json, as tools nobody
 * here wrote read it: swagger-parser, redocly lint with its recommended rules, and
 * the checks of issue 17 (security, error answers, types, names, ids, servers).
 */
describe('The OpenAPI document (e2e)', () => {
  let t: TestApp;
  let document: Json;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    // An API host is configured, as in production: `servers` must carry it.
    t = await startTestApp({ env: { API_HOSTS: 'api.statichost.test,127.0.0.1' } });
    document = (await t.http().get('/docs/openapi.json').expect(200)).body;
    dir = await mkdtemp(join(tmpdir(), 'statichost-openapi-'));
    file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document, null, 2));
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is valid OpenAPI for swagger-parser', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [
        '-e',
        `require('@apidevtools/swagger-parser').validate(process.argv[1]).then(() => console.log('valid'), (e) => { console.error(e.message); process.exit(1); })`,
        file,
      ],
      { cwd: root },
    ).catch((err: { stdout: string; stderr: string }) => err);
    expect({ stdout: stdout.trim(), stderr: stderr.trim() }).toEqual({ stdout: 'valid', stderr: '' });
  });

  it('passes redocly lint with the recommended rules: no error, and no warning but /health having no 4xx', async () => {
    await writeFile(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
    const result = await promisify(execFile)(
      process.execPath,
      [join(root, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--config', join(dir, 'redocly.yaml'), '--format', 'json'],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    ).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as {
      problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
    };
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
    // The one warning: /health answers 200 or 503 and nothing else, so it has no 4xx to list.
    const accepted = [
      'warn operation-4xx-response: Operation must have at least one `4XX` response. at #/paths/~1health/get/responses',
      // SSO's browser navigations (issue 32) answer with redirects, never 2xx.
      'warn operation-2xx-response: Operation must have at least one `2XX` response. at #/paths/~1auth~1sso~1start/get/responses',
      'warn operation-2xx-response: Operation must have at least one `2XX` response. at #/paths/~1auth~1sso~1callback/get/responses',
      // Its refusals are redirects to the sign-in page too.
      'warn operation-4xx-response: Operation must have at least one `4XX` response. at #/paths/~1auth~1sso~1callback/get/responses',
    ];
    expect(problems.filter((p) => !accepted.includes(p))).toEqual([]);
    expect(result.code).toBe(0);
  });

  it('names the configured public API address in servers', () => {
    expect(document.servers).toEqual([{ url: `http://api.statichost.test:${t.port}`, description: 'This service' }]);
  });

  it('declares security: [] on the public routes and, elsewhere, the bearer and the scope or role in the description', () => {
    const publicOps = operations(document)
      .filter(({ op }) => op['x-access'].public)
      .map(({ op }) => op.operationId)
      .sort();
    expect(publicOps).toEqual([
      'confirmPasswordReset',
      'getHealth',
      'login',
      // The second step of a sign-in (issue 32): the challenge the password earned is the authority.
      'loginSecondFactor',
      // Passkey sign-in (issue 32): the WebAuthn signature over a challenge it issued is the authority.
      'passkeyAuthenticationOptions',
      'receiveGitWebhook',
      // Stripe's deliveries: the Stripe-Signature over the raw body is the authority (issue 31).
      'receiveStripeWebhook',
      'refresh',
      'register',
      'requestPasswordReset',
      // The unsubscribe link of notification mails: its signed token is the authority (RFC 8058).
      'showUnsubscribe',
      'signInWithPasskey',
      // Single sign-on's browser navigations (issue 32): the provider's answer is the authority.
      'ssoCallback',
      'startSso',
      'unsubscribe',
      'verifyEmail',
    ]);
    for (const { path, method, op } of operations(document)) {
      const access = op['x-access'];
      if (access.public) {
        expect([path, op.security]).toEqual([path, []]);
        continue;
      }
      expect([path, method, op.security]).toEqual([path, method, [{ bearer: [] }]]);
      expect(op.description).toContain('**Access:**');
      for (const scope of access.scopes) expect([path, op.description]).toEqual([path, expect.stringContaining(`\`${scope}\``)]);
      for (const role of access.roles) expect([path, op.description]).toEqual([path, expect.stringContaining(`\`${role}\``)]);
    }
    const deploy = document.paths['/v1/deployments'].post;
    expect(deploy.description).toContain('**Access:** an API token (`sk_live_…`) only; scope `deploy`');
  });

  it('gives every operation a readable verb as its id', () => {
    const ids = operations(document).map(({ op }) => op.operationId);
    expect(ids.filter((id) => !/^[a-z]+[A-Za-z]*$/.test(id))).toEqual([]);
    // Each is its route's @Endpoint id (the document is not built without one): no two routes share one.
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids).toHaveLength(118);
    expect(document.paths['/v1/deployments'].post.operationId).toBe('deployLazy');
    expect(document.paths['/projects'].get.operationId).toBe('listProjects');
    expect(document.paths['/projects/{projectId}/deployments/{deploymentId}/promote'].patch.operationId).toBe('promoteDeployment');
  });

  it('has a schema for every answer with a body, and the error answers each route can give with their codes', () => {
    const missing: string[] = [];
    for (const { path, method, op } of operations(document)) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        // No content: a 204, or a redirect (SSO's browser navigations).
        if (status === '204' || status === '302') continue;
        const content = (response as Json).content as Json | undefined;
        if (!content || !Object.values(content).every((c) => (c as Json).schema)) missing.push(`${method} ${path} ${status}`);
      }
      const statuses = Object.keys(op.responses);
      if (!op['x-access'].public) {
        for (const s of ['401', '403']) if (!statuses.includes(s)) missing.push(`${method} ${path} lacks ${s}`);
      }
      if (path.includes('{') && !op['x-access'].public && !statuses.includes('404')) missing.push(`${method} ${path} lacks 404`);
      if (op.requestBody && !statuses.includes('400')) missing.push(`${method} ${path} lacks 400`);
    }
    expect(missing).toEqual([]);
    const created = document.paths['/projects'].post.responses;
    expect(created['201'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ProjectCreatedView' });
    expect(created['409'].content['application/json'].schema.allOf).toEqual([
      { $ref: '#/components/schemas/Error' },
      { type: 'object', properties: { statusCode: { type: 'integer', enum: [409] }, code: { type: 'string', enum: ['slug_taken'] } } },
    ]);
    expect(created['402'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual(['quota_exceeded']);
    expect(created['403'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual([
      'forbidden',
      'insufficient_scope',
      'not_a_member',
      'two_factor_required',
      'workspace_mismatch',
    ]);
    expect(document.paths['/v1/me'].get.responses['403'].content['application/json'].schema.allOf[1].properties.code.enum).toEqual([
      'workspace_mismatch',
      'wrong_credential_kind',
    ]);
    expect(document.components.schemas.Error.required).toEqual(['statusCode', 'error', 'message', 'code']);
  });

  it('types numbers as integers, nullable values as nullable, and nullable enums with null', () => {
    const numbers: string[] = [];
    const enums: string[] = [];
    walk(document, (s, at) => {
      // A fraction says so (format double); every count, size and page value is an integer.
      if (s.type === 'number' && s.format !== 'double') numbers.push(at);
      if (s.nullable === true && Array.isArray(s.enum) && !s.enum.includes(null)) enums.push(at);
    });
    expect(numbers).toEqual([]);
    expect(enums).toEqual([]);
    const schemas = document.components.schemas;
    expect(schemas.ProjectView.properties.custom_domain).toMatchObject({ type: 'string', nullable: true });
    expect(schemas.UpdateProjectDto.properties.custom_domain).toMatchObject({ type: 'string', nullable: true });
    expect(schemas.ProjectView.properties.domainStatus).toMatchObject({ enum: ['pending', 'verified', 'failed', null], nullable: true });
    expect(schemas.ProjectView.required).toEqual(expect.arrayContaining(['id', 'slug', 'custom_domain', 'domainStatus', 'liveDeploymentId', 'url']));
    expect(schemas.DeploymentView.properties.version).toMatchObject({ type: 'integer' });
    const listProjects = document.paths['/projects'].get;
    expect(listProjects.parameters.filter((p: Json) => p.in === 'query').map((p: Json) => [p.name, p.schema.type])).toEqual([
      ['page', 'integer'],
      ['limit', 'integer'],
      ['search', 'string'],
      ['sort', 'string'],
      ['status', 'string'],
    ]);
    const enumOf = (name: string) => listProjects.parameters.find((p: Json) => p.name === name).schema.enum;
    expect(enumOf('sort')).toEqual(['name', '-name', 'lastDeploy', '-lastDeploy']);
    expect(enumOf('status')).toEqual(['live', 'none']);
  });

  it('names fields as the spec does, and every other field in camelCase', () => {
    const names = new Set<string>();
    walk(document.components.schemas, (s) => {
      if (s.type === 'object' && s.properties) for (const name of Object.keys(s.properties)) names.add(name);
    });
    walk(document.paths, (s) => {
      if (s.in === 'query' && typeof s.name === 'string') names.add(s.name);
    });
    const offRule = [...names].filter((n) => !SPEC_SNAKE_FIELDS.includes(n) && !/^[a-z][a-zA-Z0-9]*$/.test(n));
    expect(offRule).toEqual([]);
    // The same instant has one name on a project and in the verify-domain answer.
    expect(Object.keys(document.components.schemas.VerifyDomainView.properties)).toEqual(expect.arrayContaining(['domainStatus', 'domainVerifiedAt']));
  });

  it('has a response check that refuses what the document does not allow (the check run on every recorded answer)', () => {
    const validator = new ResponseValidator(document);
    const project = {
      id: 'proj_0',
      name: 'a',
      slug: 'a',
      type: 'static_file',
      default_ttl: '7d',
      workspaceId: 'ws_0',
      createdAt: '2030-01-01T00:00:00.000Z',
      gate_type: 'none',
      custom_domain: null,
      domainStatus: null,
      domainVerifiedAt: null,
      domainRecords: null,
      liveDeploymentId: null,
      liveVersion: null,
      liveSizeBytes: null,
      liveCreatedAt: null,
      url: 'http://a.localhost',
      updatedAt: '2030-01-01T00:00:00.000Z',
    };
    const get = { method: 'get', route: '/projects/:projectId' };
    expect(validator.check({ ...get, status: 200, body: project })).toBeNull();
    expect(validator.check({ ...get, status: 200, body: { ...project, domain_status: null } })).toContain('must NOT have additional properties');
    expect(validator.check({ ...get, status: 200, body: { ...project, domainStatus: 'unknown' } })).toContain('must be equal to one of the allowed values');
    expect(validator.check({ ...get, status: 200, body: { ...project, id: undefined } })).toContain("must have required property 'id'");
    const notFound = { statusCode: 404, error: 'Not Found', message: 'Project proj_0 not found', code: 'not_found' };
    expect(validator.check({ ...get, status: 404, body: notFound })).toBeNull();
    expect(validator.check({ ...get, status: 404, body: { ...notFound, code: 'slug_taken' } })).toContain('allowed values');
    expect(validator.check({ ...get, status: 409, body: { ...notFound, statusCode: 409, code: 'conflict' } })).toContain('status not documented');
    expect(
      validator.check({ method: 'get', route: '/projects', status: 200, body: { data: [project], meta: { total: 1, page: 1, limit: 20, totalPages: 1.5 } } }),
    ).toContain('must be integer');
  });
});
