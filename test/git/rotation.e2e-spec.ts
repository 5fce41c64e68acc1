import { randomBytes } from 'node:crypto';

import { rotateGitSecrets } from '../../src/git/git-rotation';
import { GitSettingsService } from '../../src/git/git-settings.service';
import { LeadsKeyring } from '../../src/leads/keyring';
import { startTestApp, type TestApp } from '../helpers/app';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { asUser, registerUser } from '../helpers/identity';

const key = () => randomBytes(32).toString('base64');
const K1 = `k1:${key()}`;
const K2 = `k2:${key()}`;
const IDX = `idx:${key()}`;

describe('Build secrets under a rotated leads key (e2e)', () => {
  let git: GitServer;
  let before: TestApp;
  const others: TestApp[] = [];
  let projectId: string;
  let webhookSecret: string;
  const errors: object[] = [];
  const log = { error: (fields: object) => void errors.push(fields) };

  const instance = async (keys: string) => {
    const t = await startTestApp({ sibling: before, env: { GIT_ALLOW_PRIVATE_ADDRESSES: 'true', LEADS_ENCRYPTION_KEYS: keys, LEADS_INDEX_KEY: IDX } });
    others.push(t);
    return t;
  };
  const keyIds = async (t: TestApp) =>
    t.dataSource.query(
      `SELECT 'token' AS what, token_key_id AS key_id FROM project_git WHERE token_key_id IS NOT NULL
       UNION ALL SELECT 'webhook secret', webhook_key_id FROM project_git WHERE webhook_key_id IS NOT NULL
       UNION ALL SELECT name, key_id FROM project_env_vars ORDER BY 1`,
    );

  beforeAll(async () => {
    git = await startGitServer();
    git.createRepo('site', { 'index.html': 'x' }, { token: 'tok-rotate-1' });
    before = await startTestApp({ env: { GIT_ALLOW_PRIVATE_ADDRESSES: 'true', LEADS_ENCRYPTION_KEYS: K1, LEADS_INDEX_KEY: IDX } });
    const owner = await registerUser(before);
    projectId = (await before.http().post('/projects').set(asUser(owner)).send({ name: 'Rotating' }).expect(201)).body.id;
    await before
      .http()
      .put(`/projects/${projectId}/git`)
      .set(asUser(owner))
      .send({ repository: git.url('site'), productionBranch: 'main', accessToken: 'tok-rotate-1' })
      .expect(200);
    webhookSecret = (await before.http().post(`/projects/${projectId}/git/webhook-secret`).set(asUser(owner)).expect(200)).body.secret;
    for (const name of ['A_ONE', 'B_TWO', 'C_THREE'])
      await before
        .http()
        .put(`/projects/${projectId}/env/${name}`)
        .set(asUser(owner))
        .send({ value: `value of ${name}`, targets: ['production'] })
        .expect(200);
  });
  afterAll(async () => {
    for (const t of others.reverse()) await t.close();
    await before?.close();
    await git?.close();
  });

  it('seals every token, webhook secret and value again under the newest key, so the old key can go', async () => {
    const both = await instance(`${K2},${K1}`);
    expect(await keyIds(both)).toEqual([
      { what: 'A_ONE', key_id: 'k1' },
      { what: 'B_TWO', key_id: 'k1' },
      { what: 'C_THREE', key_id: 'k1' },
      { what: 'token', key_id: 'k1' },
      { what: 'webhook secret', key_id: 'k1' },
    ]);
    const updatedAt = await both.dataSource.query(`SELECT name, updated_at FROM project_env_vars ORDER BY name`);
    expect(await rotateGitSecrets(both.dataSource, both.app.get(LeadsKeyring), log)).toEqual({ resealed: 5, failed: 0, remaining: 0 });
    expect((await keyIds(both)).map((r: { key_id: string }) => r.key_id)).toEqual(['k2', 'k2', 'k2', 'k2', 'k2']);
    // Not a change the user made.
    expect(await both.dataSource.query(`SELECT name, updated_at FROM project_env_vars ORDER BY name`)).toEqual(updatedAt);
    expect(await rotateGitSecrets(both.dataSource, both.app.get(LeadsKeyring), log)).toEqual({ resealed: 0, failed: 0, remaining: 0 });

    const onlyNew = await instance(K2);
    expect(await onlyNew.app.get(GitSettingsService).buildInputs(projectId, 'production')).toMatchObject({
      accessToken: 'tok-rotate-1',
      env: { A_ONE: 'value of A_ONE', B_TWO: 'value of B_TWO', C_THREE: 'value of C_THREE' },
    });
    expect(await onlyNew.app.get(GitSettingsService).webhookTarget(projectId)).toMatchObject({ secret: webhookSecret });
    expect(errors).toEqual([]);
  });

  it('leaves what it cannot open, and says which', async () => {
    const t = await instance(`${K1}`);
    // Sealed under k2, which this instance does not have.
    expect(await rotateGitSecrets(t.dataSource, t.app.get(LeadsKeyring), log)).toEqual({ resealed: 0, failed: 5, remaining: 5 });
    expect(errors).toContainEqual({ projectId, name: 'B_TWO', keyId: 'k2' });
    expect(JSON.stringify(errors)).not.toContain('value of');
    await expect(t.app.get(GitSettingsService).buildInputs(projectId, 'production')).rejects.toThrow('key k2');
    await expect(t.app.get(GitSettingsService).webhookTarget(projectId)).rejects.toThrow('The webhook secret of project');
  });
});
