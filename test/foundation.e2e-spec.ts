import { startTestApp, type TestApp } from './helpers/app';

describe('Foundation (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { BODY_LIMIT_BYTES: String(64 * 1024) } });
  });
  afterAll(() => t.close());

  describe('GET /health', () => {
    it('answers 200 with the database and storage up, without a credential', async () => {
      const res = await t.http().get('/health').expect(200);
      expect(res.body).toEqual({ status: 'ok', checks: { database: 'up', storage: 'up' } });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('reuses a well-formed incoming X-Request-Id', async () => {
      const res = await t.http().get('/health').set('X-Request-Id', 'lb-1234.abc').expect(200);
      expect(res.headers['x-request-id']).toBe('lb-1234.abc');
    });
  });

  describe('errors', () => {
    it('answers an unknown route with the error body', async () => {
      const res = await t.http().get('/no/such/route').expect(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Cannot GET /no/such/route', code: 'not_found' });
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });

    it('answers malformed JSON with 400 saying so', async () => {
      const res = await t.http().post('/health').set('Content-Type', 'application/json').send('{"a":');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'invalid_json' });
      expect(res.body.message).toContain('not valid JSON');
    });

    it('answers a body over the limit with 413 naming the limit', async () => {
      const res = await t
        .http()
        .post('/health')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ blob: 'x'.repeat(70 * 1024) }));
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large', code: 'payload_too_large', limit: 65536 });
      expect(res.body.message).toContain('the limit is 64 KB');
    });
  });

  describe('OpenAPI', () => {
    it('serves the document with the bearer scheme', async () => {
      const res = await t.http().get('/docs/openapi.json').expect(200);
      expect(res.body.openapi).toMatch(/^3\./);
      expect(res.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(res.body.paths['/health']).toBeDefined();
    });

    it('serves the UI', async () => {
      const res = await t.http().get('/docs').expect(200);
      expect(res.headers['content-type']).toContain('text/html');
    });
  });

  describe('logs', () => {
    it('are JSON lines that never contain the Authorization header or cookies', async () => {
      const secret = 'sk_live_thisMustNeverBeLogged0123456789';
      await t.http().get('/no/such/route').set('Authorization', `Bearer ${secret}`).set('Cookie', 'gate=topsecretcookie');
      await t.http().get('/health').set('Authorization', `Bearer ${secret}`);
      const text = t.logs.join('');
      expect(text).toContain('"url":"/no/such/route"');
      expect(text).toContain('[redacted]');
      expect(text).not.toContain(secret);
      expect(text).not.toContain('topsecretcookie');
      for (const line of t.logs) expect(() => JSON.parse(line)).not.toThrow();
    });
  });
});
