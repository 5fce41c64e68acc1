import { createHmac } from 'node:crypto';

import {
  GITEA_BRANCH_DELETED,
  GITEA_PULL_REQUEST_SYNCHRONIZED,
  GITEA_PUSH,
  GITHUB_BRANCH_DELETED,
  GITHUB_PING,
  GITHUB_PULL_REQUEST_FROM_FORK,
  GITHUB_PULL_REQUEST_OPENED,
  GITHUB_PUSH,
  GITHUB_TAG_PUSH,
  GITLAB_BRANCH_DELETED,
  GITLAB_MERGE_REQUEST_OPENED,
  GITLAB_PUSH,
  GITLAB_TAG_PUSH,
} from './examples.fixture';
import { detectForge, readWebhook, type WebhookHeaders } from './read-webhook';

const SECRET = 'It’s a Secret to Everybody';
const DELIVERY = '72d3162e-cc78-11e3-81ab-4c9367dc0958';

const hmac = (secret: string, body: Buffer | string) => createHmac('sha256', secret).update(body).digest('hex');

/** A delivery as each forge sends it, signed with `secret`. */
function github(event: string, payload: unknown, secret = SECRET) {
  const body = Buffer.from(JSON.stringify(payload));
  return {
    body,
    headers: {
      'x-github-event': event,
      'x-github-delivery': DELIVERY,
      'x-hub-signature-256': `sha256=${hmac(secret, body)}`,
      'content-type': 'application/json',
    },
  };
}
function gitlab(event: string, payload: unknown, token = SECRET) {
  const body = Buffer.from(JSON.stringify(payload));
  return { body, headers: { 'X-Gitlab-Event': event, 'X-Gitlab-Event-UUID': DELIVERY, 'X-Gitlab-Token': token, 'Content-Type': 'application/json' } };
}
/** Gitea also sends GitHub's and Gogs' headers; Forgejo also sends Gitea's. */
function gitea(event: string, payload: unknown, secret = SECRET, forgejo = false) {
  const body = Buffer.from(JSON.stringify(payload));
  const signature = hmac(secret, body);
  const headers: WebhookHeaders = {
    'x-github-event': event,
    'x-github-delivery': DELIVERY,
    'x-gogs-event': event,
    'x-gitea-event': event,
    'x-gitea-delivery': DELIVERY,
    'x-gitea-signature': signature,
    'content-type': 'application/json',
  };
  if (forgejo) Object.assign(headers, { 'x-forgejo-event': event, 'x-forgejo-delivery': DELIVERY, 'x-forgejo-signature': signature });
  return { body, headers };
}

describe('readWebhook: GitHub', () => {
  it('reads a signed push of a branch', async () => {
    expect(await readWebhook(github('push', GITHUB_PUSH), SECRET)).toEqual({
      ok: true,
      forge: 'github',
      deliveryId: DELIVERY,
      eventName: 'push',
      event: {
        kind: 'push',
        repositoryUrls: [
          'https://github.com/Codertocat/Hello-World.git',
          'https://github.com/Codertocat/Hello-World',
          'git@github.com:Codertocat/Hello-World.git',
        ],
        branch: 'main',
        after: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
        deleted: false,
        commitMessage: 'Update README.md',
      },
    });
  });

  it('reads a branch deletion, ignores a tag push, answers a ping', async () => {
    const deleted = await readWebhook(github('push', GITHUB_BRANCH_DELETED), SECRET);
    expect(deleted.ok && deleted.event).toMatchObject({ kind: 'push', branch: 'simple-tag-branch', deleted: true, commitMessage: null });
    const tag = await readWebhook(github('push', GITHUB_TAG_PUSH), SECRET);
    expect(tag.ok && tag.event).toEqual({ kind: 'ignored', why: 'tag push (simple-tag): only branches are built' });
    const ping = await readWebhook(github('ping', GITHUB_PING), SECRET);
    expect(ping.ok && ping.event).toEqual({ kind: 'ping' });
  });

  it('reads pull requests, from the repository itself and from a fork', async () => {
    const same = await readWebhook(github('pull_request', GITHUB_PULL_REQUEST_OPENED), SECRET);
    expect(same.ok && same.event).toEqual({
      kind: 'pull_request',
      action: 'opened',
      number: 2,
      headRef: 'changes',
      headSha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
      headRepositoryUrl: 'https://github.com/Codertocat/Hello-World.git',
      baseRepositoryUrl: 'https://github.com/Codertocat/Hello-World.git',
      isFork: false,
      merged: false,
    });
    const fork = await readWebhook(github('pull_request', GITHUB_PULL_REQUEST_FROM_FORK), SECRET);
    expect(fork.ok && fork.event).toMatchObject({ kind: 'pull_request', isFork: true, headRepositoryUrl: 'https://github.com/Octocat/Hello-World.git' });
    // A fork deleted since: the head repository is null, and it is still a fork.
    const gone = {
      ...GITHUB_PULL_REQUEST_OPENED,
      pull_request: { ...GITHUB_PULL_REQUEST_OPENED.pull_request, head: { ...GITHUB_PULL_REQUEST_OPENED.pull_request.head, repo: null } },
    };
    const orphan = await readWebhook(github('pull_request', gone), SECRET);
    expect(orphan.ok && orphan.event).toMatchObject({ isFork: true, headRepositoryUrl: null });
  });

  it('maps synchronize, reopened and closed (merged or not), and ignores other actions', async () => {
    const pr = GITHUB_PULL_REQUEST_OPENED;
    const read = async (action: string, merged = false) => {
      const out = await readWebhook(github('pull_request', { ...pr, action, pull_request: { ...pr.pull_request, merged } }), SECRET);
      return out.ok ? out.event : out;
    };
    expect(await read('synchronize')).toMatchObject({ action: 'synchronize' });
    expect(await read('reopened')).toMatchObject({ action: 'reopened' });
    expect(await read('closed')).toMatchObject({ action: 'closed', merged: false });
    expect(await read('closed', true)).toMatchObject({ action: 'closed', merged: true });
    expect(await read('labeled')).toEqual({ kind: 'ignored', why: 'pull request action "labeled" is not acted on' });
  });

  it('ignores events it does not act on, after checking their signature', async () => {
    const out = await readWebhook(github('issues', { action: 'opened' }), SECRET);
    expect(out).toMatchObject({ ok: true, event: { kind: 'ignored', why: expect.stringContaining('"issues"') } });
    expect(await readWebhook(github('issues', { action: 'opened' }, 'other'), SECRET)).toMatchObject({ ok: false, status: 401 });
  });

  it('reads a form-encoded delivery (GitHub can post application/x-www-form-urlencoded)', async () => {
    const body = Buffer.from(new URLSearchParams({ payload: JSON.stringify(GITHUB_PUSH) }).toString());
    const out = await readWebhook(
      {
        body,
        headers: { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(SECRET, body)}`, 'content-type': 'application/x-www-form-urlencoded' },
      },
      SECRET,
    );
    expect(out.ok && out.event).toMatchObject({ kind: 'push', branch: 'main' });
  });
});

describe('readWebhook: GitLab', () => {
  it('reads a push with its token, the head commit being the one `after` names', async () => {
    expect(await readWebhook(gitlab('Push Hook', GITLAB_PUSH), SECRET)).toEqual({
      ok: true,
      forge: 'gitlab',
      deliveryId: DELIVERY,
      eventName: 'Push Hook',
      event: {
        kind: 'push',
        repositoryUrls: ['http://example.com/mike/diaspora.git', 'http://example.com/mike/diaspora', 'git@example.com:mike/diaspora.git'],
        branch: 'master',
        after: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
        deleted: false,
        commitMessage: 'fixed readme',
      },
    });
  });

  it('reads a branch deletion (all-zero after) and ignores tag pushes', async () => {
    const deleted = await readWebhook(gitlab('Push Hook', GITLAB_BRANCH_DELETED), SECRET);
    expect(deleted.ok && deleted.event).toMatchObject({ kind: 'push', branch: 'feature', deleted: true, commitMessage: null });
    const tag = await readWebhook(gitlab('Tag Push Hook', GITLAB_TAG_PUSH), SECRET);
    expect(tag.ok && tag.event).toEqual({ kind: 'ignored', why: 'tag push: only branches are built' });
  });

  it('reads merge requests: open, update with new commits, merge; an update without commits is ignored', async () => {
    const mr = GITLAB_MERGE_REQUEST_OPENED;
    const read = async (attributes: Record<string, unknown>) => {
      const out = await readWebhook(gitlab('Merge Request Hook', { ...mr, object_attributes: { ...mr.object_attributes, ...attributes } }), SECRET);
      return out.ok ? out.event : out;
    };
    expect(await read({})).toEqual({
      kind: 'pull_request',
      action: 'opened',
      number: 1,
      headRef: 'ms-viewport',
      headSha: 'da1560886d4f094c3e6c9ef40349f7d38b5d27d7',
      headRepositoryUrl: 'http://example.com/awesome_space/awesome_project.git',
      baseRepositoryUrl: 'http://example.com/awesome_space/awesome_project.git',
      isFork: false,
      merged: false,
    });
    expect(await read({ action: 'update', oldrev: '95790bf891e76fee5e1747ab589903a6a1f80f22' })).toMatchObject({ action: 'synchronize' });
    expect(await read({ action: 'update' })).toEqual({ kind: 'ignored', why: 'merge request updated without new commits' });
    expect(await read({ action: 'merge', state: 'merged' })).toMatchObject({ action: 'closed', merged: true });
    expect(await read({ action: 'close', state: 'closed' })).toMatchObject({ action: 'closed', merged: false });
    expect(await read({ action: 'reopen' })).toMatchObject({ action: 'reopened' });
    expect(await read({ action: 'approved' })).toEqual({ kind: 'ignored', why: 'pull request action "approved" is not acted on' });
    const source = { ...mr.object_attributes.source, git_http_url: 'http://example.com/someone/awesome_project.git' };
    expect(await read({ source })).toMatchObject({ isFork: true });
  });

  it('refuses a wrong or missing token', async () => {
    expect(await readWebhook(gitlab('Push Hook', GITLAB_PUSH, 'wrong'), SECRET)).toMatchObject({ ok: false, status: 401, problem: 'bad_signature' });
    expect(await readWebhook(gitlab('Push Hook', GITLAB_PUSH, `${SECRET}x`), SECRET)).toMatchObject({ ok: false, status: 401 });
    const { body, headers } = gitlab('Push Hook', GITLAB_PUSH);
    delete (headers as WebhookHeaders)['X-Gitlab-Token'];
    expect(await readWebhook({ body, headers }, SECRET)).toMatchObject({
      ok: false,
      status: 401,
      problem: 'missing_signature',
      message: expect.stringContaining('X-Gitlab-Token'),
    });
  });
});

describe('readWebhook: Gitea and Forgejo', () => {
  it('reads a signed Gitea push (the documented example)', async () => {
    const out = await readWebhook(gitea('push', GITEA_PUSH), SECRET);
    expect(out).toEqual({
      ok: true,
      forge: 'gitea',
      deliveryId: DELIVERY,
      eventName: 'push',
      event: {
        kind: 'push',
        repositoryUrls: ['http://localhost:3000/gitea/webhooks.git', 'http://localhost:3000/gitea/webhooks', 'ssh://gitea@localhost:2222/gitea/webhooks.git'],
        branch: 'develop',
        after: 'bffeb74224043ba2feb48d137756c8a9331c449a',
        deleted: false,
        commitMessage: 'Webhooks Yay!',
      },
    });
  });

  it('tells Forgejo from Gitea, and checks X-Forgejo-Signature', async () => {
    const out = await readWebhook(gitea('push', GITEA_PUSH, SECRET, true), SECRET);
    expect(out).toMatchObject({ ok: true, forge: 'forgejo', event: { kind: 'push' } });
    const forged = gitea('push', GITEA_PUSH, SECRET, true);
    forged.headers['x-forgejo-signature'] = hmac('other', forged.body);
    expect(await readWebhook(forged, SECRET)).toMatchObject({ ok: false, status: 401, message: expect.stringContaining('X-Forgejo-Signature') });
  });

  it('reads a branch deletion (the delete event) and a synchronized pull request', async () => {
    const deleted = await readWebhook(gitea('delete', GITEA_BRANCH_DELETED), SECRET);
    expect(deleted.ok && deleted.event).toMatchObject({ kind: 'push', branch: 'develop', deleted: true, after: '0'.repeat(40) });
    const tagDeleted = await readWebhook(gitea('delete', { ...GITEA_BRANCH_DELETED, ref: 'v1', ref_type: 'tag' }), SECRET);
    expect(tagDeleted.ok && tagDeleted.event).toMatchObject({ kind: 'ignored' });
    const pr = await readWebhook(gitea('pull_request', GITEA_PULL_REQUEST_SYNCHRONIZED), SECRET);
    expect(pr.ok && pr.event).toMatchObject({ kind: 'pull_request', action: 'synchronize', number: 7, headRef: 'feature/page', isFork: false });
  });
});

describe('readWebhook: refusals', () => {
  it('refuses a forged signature: another secret, a changed body, a truncated or sha1 header', async () => {
    expect(await readWebhook(github('push', GITHUB_PUSH, 'another secret'), SECRET)).toMatchObject({ ok: false, status: 401, problem: 'bad_signature' });
    const changed = github('push', GITHUB_PUSH);
    const tampered = { ...changed, body: Buffer.from(changed.body.toString().replace('refs/heads/main', 'refs/heads/evil')) };
    expect(await readWebhook(tampered, SECRET)).toMatchObject({ ok: false, status: 401 });
    const short = github('push', GITHUB_PUSH);
    short.headers['x-hub-signature-256'] = short.headers['x-hub-signature-256'].slice(0, 20);
    expect(await readWebhook(short, SECRET)).toMatchObject({ ok: false, status: 401 });
    const sha1 = github('push', GITHUB_PUSH);
    sha1.headers['x-hub-signature-256'] = `sha1=${createHmac('sha1', SECRET).update(sha1.body).digest('hex')}`;
    expect(await readWebhook(sha1, SECRET)).toMatchObject({ ok: false, status: 401 });
    const giteaForged = gitea('push', GITEA_PUSH);
    giteaForged.headers['x-gitea-signature'] = 'zz' + String(giteaForged.headers['x-gitea-signature']).slice(2);
    expect(await readWebhook(giteaForged, SECRET)).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses a missing signature, and any delivery when the project has no secret', async () => {
    const unsigned = github('push', GITHUB_PUSH);
    delete (unsigned.headers as WebhookHeaders)['x-hub-signature-256'];
    expect(await readWebhook(unsigned, SECRET)).toMatchObject({ ok: false, status: 401, problem: 'missing_signature' });
    expect(await readWebhook(github('push', GITHUB_PUSH, ''), '')).toMatchObject({ ok: false, status: 401 });
  });

  it('checks the signature before parsing: a signed non-JSON body is a 400, an unsigned one a 401', async () => {
    const body = Buffer.from('{not json');
    const signed = { body, headers: { 'x-gitea-event': 'push', 'x-gitea-signature': hmac(SECRET, body) } };
    expect(await readWebhook(signed, SECRET)).toMatchObject({ ok: false, status: 400, problem: 'malformed_payload' });
    const unsigned = { body, headers: { 'x-gitea-event': 'push', 'x-gitea-signature': hmac('x', body) } };
    expect(await readWebhook(unsigned, SECRET)).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses a signed payload that lacks a field it needs, naming the field', async () => {
    const { repository: _, ...noRepository } = GITHUB_PUSH;
    expect(await readWebhook(github('push', noRepository), SECRET)).toMatchObject({ ok: false, status: 400, message: expect.stringContaining('repository') });
    expect(await readWebhook(github('push', { ...GITHUB_PUSH, after: 'not-a-sha' }), SECRET)).toMatchObject({
      ok: false,
      status: 400,
      message: expect.stringContaining('after'),
    });
    expect(await readWebhook(github('push', [1, 2]), SECRET)).toMatchObject({ ok: false, status: 400 });
  });

  it('refuses a body over the cap before anything else', async () => {
    const big = github('push', { ...GITHUB_PUSH, padding: 'x'.repeat(5000) });
    expect(await readWebhook(big, SECRET, 4096)).toMatchObject({ ok: false, status: 413, problem: 'too_large' });
    expect(await readWebhook(big, SECRET, big.body.length)).toMatchObject({ ok: true });
  });

  it('refuses a delivery without any forge event header', async () => {
    const { body } = github('push', GITHUB_PUSH);
    const out = await readWebhook({ body, headers: { 'x-hub-signature-256': `sha256=${hmac(SECRET, body)}` } }, SECRET);
    expect(out).toMatchObject({ ok: false, status: 400, problem: 'unknown_forge' });
  });

  it('does not take one forge’s signature for another’s: a GitHub signature on a Gitea event is no signature', async () => {
    const { body, headers } = github('push', GITEA_PUSH);
    const out = await readWebhook({ body, headers: { ...headers, 'x-gitea-event': 'push' } }, SECRET);
    expect(out).toMatchObject({ ok: false, status: 401, problem: 'missing_signature', message: expect.stringContaining('X-Gitea-Signature') });
  });

  it('refuses a body that is not UTF-8', async () => {
    const body = Buffer.from([0x7b, 0xff, 0x7d]);
    const out = await readWebhook({ body, headers: { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(SECRET, body)}` } }, SECRET);
    expect(out).toMatchObject({ ok: false, status: 400, problem: 'malformed_payload' });
  });

  it('refuses a body that is not UTF-8 and not signed with the secret as unsigned (401), for every forge: nothing is read before the signature', async () => {
    const body = Buffer.from([0x7b, 0xff, 0x7d]);
    const wrong = hmac('not the secret', body);
    const deliveries = [
      { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${wrong}` },
      { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'not the secret' },
      { 'x-gitea-event': 'push', 'x-gitea-signature': wrong },
      { 'x-forgejo-event': 'push', 'x-forgejo-signature': wrong },
    ];
    for (const headers of deliveries) {
      expect(await readWebhook({ body, headers }, SECRET)).toMatchObject({ ok: false, status: 401, problem: 'bad_signature' });
      expect(await readWebhook({ body, headers }, '')).toMatchObject({ ok: false, status: 401, problem: 'bad_signature' });
    }
  });
});

describe('detectForge', () => {
  it('prefers the most specific forge header', () => {
    expect(detectForge({ 'X-GitHub-Event': 'push' })?.forge).toBe('github');
    expect(detectForge({ 'x-github-event': 'push', 'x-gitea-event': 'push' })?.forge).toBe('gitea');
    expect(detectForge({ 'x-gitea-event': 'push', 'x-forgejo-event': 'push' })?.forge).toBe('forgejo');
    expect(detectForge({ 'x-gitlab-event': 'Push Hook' })?.forge).toBe('gitlab');
    expect(detectForge({ 'content-type': 'application/json' })).toBeNull();
  });
});
