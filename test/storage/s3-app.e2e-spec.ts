import { startTestApp } from '../helpers/app';
import { type S3TestServer, startS3Server } from '../helpers/s3';

/** The whole app on STORAGE_DRIVER=s3, configured only through startS3Server().env. */
describe('the app on S3 storage (s3rver)', () => {
  let s3: S3TestServer;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(() => s3?.stop());

  it('reports the bucket up in /health, and never logs the secret', async () => {
    const app = await startTestApp({ env: s3.env });
    try {
      expect(app.config.STORAGE_DRIVER).toBe('s3');
      const ok = await app.http().get('/health').expect(200);
      expect(ok.body).toEqual({ status: 'ok', checks: { database: 'up', storage: 'up' } });
    } finally {
      await app.close();
    }
    expect(app.logs.join('\n')).not.toContain(s3.secretAccessKey);
  });

  it('reports storage down (503) when the bucket does not exist', async () => {
    const app = await startTestApp({ env: { ...s3.env, S3_BUCKET: 'no-such-bucket' } });
    try {
      const down = await app.http().get('/health').expect(503);
      expect(down.body.checks).toEqual({ database: 'up', storage: 'down' });
    } finally {
      await app.close();
    }
    expect(app.logs.join('\n')).not.toContain(s3.secretAccessKey);
  });
});
