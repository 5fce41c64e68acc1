import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { AuthService } from '../../src/auth/auth.service';
import { DeferredWork } from '../../src/common/deferred-work';
import { configurePasswordHashCost } from '../../src/common/password-hash';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, loginUser, registerUser, uniqueEmail } from '../helpers/identity';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const UNAUTHORIZED = { statusCode: 401, error: 'Unauthorized', message: 'Missing or invalid credentials', code: 'unauthorized' };

describe('Accounts and sessions (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  describe('POST /auth/register', () => {
    it('creates the user, a personal workspace they own, and a session', async () => {
      const email = uniqueEmail('Reg');
      const res = await t.http().post('/auth/register').send({ email, password: 'long enough password', name: 'Ann Lee' }).expect(201);
      expect(res.body).toEqual({
        accessToken: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        refreshToken: expect.stringMatching(/^rt_[0-9A-Za-z]{43}$/),
        expiresIn: 900,
        user: {
          id: expect.stringMatching(/^usr_[0-9a-z]{24}$/),
          email: email.toLowerCase(),
          name: 'Ann Lee',
          emailVerified: false,
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
        workspace: {
          id: expect.stringMatching(/^ws_[0-9a-z]{24}$/),
          name: "Ann Lee's workspace",
          plan: 'free',
          createdAt: expect.any(String),
          role: 'owner',
          requireTwoFactor: false,
        },
      });
      expect(JSON.stringify(res.body)).not.toContain('long enough password');

      const ws = await t.http().get(`/workspaces/${res.body.workspace.id}`).set(bearer(res.body.accessToken)).expect(200);
      expect(ws.body.role).toBe('owner');
      const members = await t.http().get(`/workspaces/${res.body.workspace.id}/members`).set(bearer(res.body.accessToken)).expect(200);
      expect(members.body.data).toEqual([expect.objectContaining({ email: email.toLowerCase(), role: 'owner', status: 'active', userId: res.body.user.id })]);
    });

    it('answers 409 for an email already registered, in any letter case', async () => {
      const email = uniqueEmail('dup');
      await registerUser(t, { email });
      const res = await t.http().post('/auth/register').send({ email: email.toUpperCase(), password: 'another password', name: 'Dup' }).expect(409);
      expect(res.body).toMatchObject({ statusCode: 409, code: 'email_taken', message: expect.stringContaining(email.toLowerCase()) });
    });

    it('keeps two racing registrations of one email to one account', async () => {
      const email = uniqueEmail('race');
      const results = await Promise.all([1, 2, 3].map(() => t.http().post('/auth/register').send({ email, password: 'racing password', name: 'R' })));
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM users WHERE email = $1', [email]);
      expect(n).toBe(1);
    });

    it('answers 400 naming each bad field', async () => {
      const res = await t.http().post('/auth/register').send({ email: 'not-an-email', password: 'short', name: '  ' }).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.message).toContain('email: must be an email address');
      expect(res.body.message).toContain('password: must be at least 8 characters');
      expect(res.body.message).toContain('name: must not be empty');
    });

    it('answers 400 naming a field the body must not have (forbidNonWhitelisted), creating nothing', async () => {
      const email = uniqueEmail('extra');
      for (const extra of [{ role: 'owner' }, { workspaceId: 'ws_aaaaaaaaaaaaaaaaaaaaaaaa' }, { userId: 'usr_aaaaaaaaaaaaaaaaaaaaaaaa' }]) {
        const res = await t
          .http()
          .post('/auth/register')
          .send({ email, password: 'long enough password', name: 'X', ...extra })
          .expect(400);
        const field = Object.keys(extra)[0];
        expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'validation_failed' });
        expect(res.body.message).toBe(`${field}: property ${field} should not exist`);
      }
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM users WHERE email = $1', [email]);
      expect(n).toBe(0);
    });

    it('stores the password as a scrypt hash only', async () => {
      const user = await registerUser(t, { password: 'plain text never stored' });
      const [row] = await t.dataSource.query('SELECT * FROM users WHERE id = $1', [user.userId]);
      expect(JSON.stringify(row)).not.toContain('plain text never stored');
      expect(row.password_hash).toMatch(/^scrypt\$/);
    });
  });

  describe('POST /auth/login', () => {
    it('signs in with the email in any letter case', async () => {
      const user = await registerUser(t);
      const res = await t.http().post('/auth/login').send({ email: user.email.toUpperCase(), password: user.password }).expect(200);
      expect(res.body).toEqual({
        accessToken: expect.any(String),
        refreshToken: expect.stringMatching(/^rt_/),
        expiresIn: 900,
        user: { id: user.userId, email: user.email, name: user.name, emailVerified: false, createdAt: expect.any(String) },
      });
      await t
        .http()
        .get('/access-tokens')
        .set(asUser({ accessToken: res.body.accessToken, workspaceId: user.workspaceId }))
        .expect(200);
    });

    it('gives a wrong email and a wrong password the same 401', async () => {
      const user = await registerUser(t);
      const wrongPassword = await t.http().post('/auth/login').send({ email: user.email, password: 'not the password' }).expect(401);
      const wrongEmail = await t
        .http()
        .post('/auth/login')
        .send({ email: uniqueEmail('nobody'), password: user.password })
        .expect(401);
      expect(wrongPassword.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Wrong email or password', code: 'invalid_login' });
      expect(wrongEmail.body).toEqual(wrongPassword.body);
      expect(wrongEmail.headers['www-authenticate']).toBe(wrongPassword.headers['www-authenticate']);
    });

    it('takes about as long for a wrong email as for a wrong password', async () => {
      // At the tests' cost (2^10, 2 ms) the failed sign-in's own writes (audit, counters) outweigh
      // the hash and the comparison says nothing: at 2^13 (17 ms here; production's 2^15 is 4
      // times that), for the account's hash and the unknown email's stand-in alike, it shows
      // whether an unknown email skips the hash.
      const auth = t.app.get(AuthService);
      configurePasswordHashCost(13);
      auth.onModuleInit();
      try {
        const user = await registerUser(t);
        const time = async (email: string) => {
          const start = process.hrtime.bigint();
          await t.http().post('/auth/login').send({ email, password: 'not the password' }).expect(401);
          return Number(process.hrtime.bigint() - start) / 1e6;
        };
        const wrongEmail: number[] = [];
        const wrongPassword: number[] = [];
        for (let i = 0; i < 5; i++) {
          wrongPassword.push(await time(user.email));
          wrongEmail.push(await time(uniqueEmail('ghost')));
        }
        const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
        // Without the dummy hash an unknown email answers in a few ms against 17 ms of scrypt and the writes.
        expect(median(wrongEmail)).toBeGreaterThan(median(wrongPassword) * 0.5);
      } finally {
        configurePasswordHashCost(10);
        auth.onModuleInit();
      }
    });

    it('does not wait for the failed sign-in’s audit entry, which only an existing account gets', async () => {
      // The entry is a transaction on the audit chain of each workspace of the account: answered
      // after it, a wrong password took longer than a wrong email (8.2 against 6.3 ms, medians
      // of 40 on a quiet machine; more under load), enough to tell accounts apart. Here the
      // chain is held by another transaction: the answer must not wait for it.
      const user = await registerUser(t);
      const other = t.dataSource.createQueryRunner();
      await other.connect();
      await other.startTransaction();
      let held: { workspace_id: string }[] | undefined;
      try {
        held = await other.query('SELECT workspace_id FROM audit_heads WHERE workspace_id = $1 FOR UPDATE', [user.workspaceId]);
        const res = await t
          .http()
          .post('/auth/login')
          .set('User-Agent', FIREFOX)
          .send({ email: user.email, password: 'not the password' })
          .timeout(5_000)
          .catch((err: Error) => err);
        expect(res instanceof Error ? res.message : res.status).toBe(401);
      } finally {
        await other.commitTransaction();
        await other.release();
      }
      expect(held).toEqual([{ workspace_id: user.workspaceId }]);
      // Still written, after the answer, saying where the attempt came from.
      await t.app.get(DeferredWork).settled();
      const entries = await t.dataSource.query(`SELECT ip, user_agent, request_id FROM audit_log WHERE action = 'user.signin_failed' AND actor_id = $1`, [
        user.userId,
      ]);
      expect(entries).toEqual([{ ip: '127.0.0.0/24', user_agent: 'Firefox', request_id: expect.any(String) }]);
    });
  });

  describe('POST /auth/refresh', () => {
    it('rotates: a new pair every time, the used refresh token is dead', async () => {
      const user = await registerUser(t);
      const first = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);
      expect(first.body).toEqual({ accessToken: expect.any(String), refreshToken: expect.stringMatching(/^rt_/), expiresIn: 900 });
      expect(first.body.refreshToken).not.toBe(user.refreshToken);
      await t.http().get('/workspaces').set(bearer(first.body.accessToken)).expect(200);

      const second = await t.http().post('/auth/refresh').send({ refreshToken: first.body.refreshToken }).expect(200);
      await t.http().get('/workspaces').set(bearer(second.body.accessToken)).expect(200);
    });

    it('revokes the whole family when a rotated token is presented again after its successor was used', async () => {
      const user = await registerUser(t);
      const rotated = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);
      const next = await t.http().post('/auth/refresh').send({ refreshToken: rotated.body.refreshToken }).expect(200);

      // The original token again: someone kept a copy.
      const reuse = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(401);
      expect(reuse.body).toMatchObject({ code: 'invalid_refresh_token' });

      await t.http().post('/auth/refresh').send({ refreshToken: next.body.refreshToken }).expect(401);
      expect((await t.http().get('/workspaces').set(bearer(next.body.accessToken)).expect(401)).body).toEqual(UNAUTHORIZED);
      expect((await t.http().get('/workspaces').set(bearer(user.accessToken)).expect(401)).body).toEqual(UNAUTHORIZED);
      expect(t.logs.join('')).toContain('refresh token reused');

      // Other sessions of the same account are untouched.
      const again = await loginUser(t, user);
      await t.http().get('/workspaces').set(bearer(again.accessToken)).expect(200);
    });

    it('gives a lost answer’s retry another pair: the replaced token once more within the grace, while its successor is unused', async () => {
      const user = await registerUser(t);
      // The answer of this refresh never reached the client (a tab reloaded mid-request).
      const lost = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);

      const retried = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);
      expect(retried.body).toEqual({ accessToken: expect.any(String), refreshToken: expect.stringMatching(/^rt_/), expiresIn: 900 });
      expect(retried.body.refreshToken).not.toBe(lost.body.refreshToken);
      await t.http().get('/workspaces').set(bearer(retried.body.accessToken)).expect(200);
      // Still one session, and the client goes on with the pair it got.
      const sessions = await t.http().get('/auth/sessions').set(bearer(retried.body.accessToken)).expect(200);
      expect(sessions.body.data).toHaveLength(1);
      await t.http().post('/auth/refresh').send({ refreshToken: retried.body.refreshToken }).expect(200);
      const sid = JSON.parse(Buffer.from(retried.body.accessToken.split('.')[1], 'base64url').toString()).sid;
      expect(t.logs.join('\n')).not.toContain(`refresh token reused: revoked session ${sid}`);

      // Once the family has rotated since, the old token is a stale copy: the session ends.
      await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(401);
      await t.http().get('/workspaces').set(bearer(retried.body.accessToken)).expect(401);
    });

    it('a copy replayed within the grace forks nothing: the successor it superseded is reuse once its own grace is over', async () => {
      const user = await registerUser(t);
      // The owner refreshes; a thief holding a copy of the old token replays it at once.
      const owners = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);
      const thiefs = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);
      // Later (past the grace), the owner refreshes with the token they hold: the session had
      // two branches; it ends, both of them, as a reuse does.
      await t.dataSource.query(`UPDATE refresh_tokens SET rotated_at = rotated_at - interval '31 seconds' WHERE user_id = $1 AND rotated_at IS NOT NULL`, [
        user.userId,
      ]);
      await t.http().post('/auth/refresh').send({ refreshToken: owners.body.refreshToken }).expect(401);
      await t.http().post('/auth/refresh').send({ refreshToken: thiefs.body.refreshToken }).expect(401);
      await t.http().get('/workspaces').set(bearer(thiefs.body.accessToken)).expect(401);
      expect(t.logs.join('')).toContain('refresh token reused');
    });

    it('ends the session when the replaced token comes back after the grace', async () => {
      const user = await registerUser(t);
      const rotated = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);
      // 31 s ago: past the default REFRESH_REUSE_GRACE_SECONDS (30).
      await t.dataSource.query(`UPDATE refresh_tokens SET rotated_at = rotated_at - interval '31 seconds' WHERE user_id = $1 AND rotated_at IS NOT NULL`, [
        user.userId,
      ]);

      await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(401);
      await t.http().post('/auth/refresh').send({ refreshToken: rotated.body.refreshToken }).expect(401);
      await t.http().get('/workspaces').set(bearer(rotated.body.accessToken)).expect(401);
      expect(t.logs.join('')).toContain('refresh token reused');
    });

    it('answers 401 for an unknown or malformed refresh token and 400 for a missing one', async () => {
      await t
        .http()
        .post('/auth/refresh')
        .send({ refreshToken: 'rt_' + 'A'.repeat(43) })
        .expect(401);
      await t.http().post('/auth/refresh').send({ refreshToken: 'garbage' }).expect(401);
      const missing = await t.http().post('/auth/refresh').send({}).expect(400);
      expect(missing.body.message).toContain('refreshToken');
    });

    it('stores refresh tokens hashed', async () => {
      const user = await registerUser(t);
      const rows = await t.dataSource.query('SELECT * FROM refresh_tokens WHERE user_id = $1', [user.userId]);
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(user.refreshToken);
      expect(JSON.stringify(rows)).not.toContain(user.refreshToken.slice(3));
      expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    });
  });

  describe('POST /auth/logout', () => {
    it("ends the JWT's session: the access JWT and the refresh token stop working, other sessions do not", async () => {
      const user = await registerUser(t);
      const other = await loginUser(t, user);
      await t.http().post('/auth/logout').set(bearer(user.accessToken)).expect(204);

      expect((await t.http().get('/workspaces').set(bearer(user.accessToken)).expect(401)).body).toEqual(UNAUTHORIZED);
      await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(401);
      await t.http().post('/auth/logout').set(bearer(user.accessToken)).expect(401);
      await t.http().get('/workspaces').set(bearer(other.accessToken)).expect(200);
    });

    it('takes a JWT only, and no body fields', async () => {
      const user = await registerUser(t);
      const extra = await t.http().post('/auth/logout').set(bearer(user.accessToken)).send({ userId: 'usr_aaaaaaaaaaaaaaaaaaaaaaaa' }).expect(400);
      expect(extra.body.message).toBe('userId: property userId should not exist');
      await t.http().post('/auth/logout').expect(401);
    });
  });

  it('never logs passwords, access JWTs or refresh tokens', async () => {
    const user = await registerUser(t, { password: 'password-that-must-not-be-logged' });
    await t.http().post('/auth/login').send({ email: user.email, password: user.password }).expect(200);
    await t.http().get('/workspaces').set(bearer(user.accessToken)).expect(200);
    await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);
    const logs = t.logs.join('');
    expect(logs).toContain('/auth/refresh');
    for (const secret of [user.password, user.accessToken, user.refreshToken]) expect(logs).not.toContain(secret);
  });
});

describe('JWT signing key (e2e)', () => {
  it('is generated once into DATA_DIR/jwt.secret (0600) and reused by the next start', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'statichost-jwt-'));
    const first = await startTestApp({ env: { DATA_DIR: dataDir } });
    let second: TestApp | undefined;
    try {
      const file = join(dataDir, 'jwt.secret');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const key = (await readFile(file, 'utf8')).trim();
      expect(key.length).toBeGreaterThanOrEqual(64);

      const user = await registerUser(first);
      second = await startTestApp({ env: { DATA_DIR: dataDir }, databaseUrl: first.databaseUrl });
      await second.http().get('/workspaces').set(bearer(user.accessToken)).expect(200);
      expect((await readFile(file, 'utf8')).trim()).toBe(key);
      expect(first.logs.join('') + second.logs.join('')).not.toContain(key);
    } finally {
      await second?.close();
      await first.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('comes from JWT_SECRET when set: no file, and another key does not verify', async () => {
    const secret = 'a-configured-secret-of-at-least-32-characters';
    const a = await startTestApp({ env: { JWT_SECRET: secret } });
    const b = await startTestApp({ env: { JWT_SECRET: secret }, databaseUrl: a.databaseUrl });
    const c = await startTestApp({ databaseUrl: a.databaseUrl });
    try {
      await expect(stat(join(a.config.DATA_DIR, 'jwt.secret'))).rejects.toMatchObject({ code: 'ENOENT' });
      const user = await registerUser(a);
      await b.http().get('/workspaces').set(bearer(user.accessToken)).expect(200);
      expect((await c.http().get('/workspaces').set(bearer(user.accessToken)).expect(401)).body).toEqual(UNAUTHORIZED);
    } finally {
      await c.close();
      await b.close();
      await a.close();
    }
  });
});
