import { createServer } from 'node:net';

import { ForgeCallError, forgeClient, type ForgeClientOptions, PREVIEW_COMMENT_MARKER } from '../../src/forges/clients/forge-client';
import type { Forge } from '../../src/forges/webhooks/events';
import { ForgeApiServer } from './forge-api-server';

const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const TOKEN = 'forge-token-123';
// Short waits: the policy's shape is what is tested, not its timing.
const FAST_RETRY = { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 20 };

/** Where each forge's API lives for a repository on the stand-in's host, and how it authenticates. */
const FORGES: { forge: Forge; statusPath: string; commentsPath: string; auth: string }[] = [
  { forge: 'github', statusPath: `/api/v3/repos/acme/site/statuses/${SHA}`, commentsPath: '/api/v3/repos/acme/site/issues/7/comments', auth: `token ${TOKEN}` },
  {
    forge: 'gitlab',
    statusPath: `/api/v4/projects/acme%2Fsite/statuses/${SHA}`,
    commentsPath: '/api/v4/projects/acme%2Fsite/merge_requests/7/notes',
    auth: TOKEN,
  },
  { forge: 'gitea', statusPath: `/api/v1/repos/acme/site/statuses/${SHA}`, commentsPath: '/api/v1/repos/acme/site/issues/7/comments', auth: `token ${TOKEN}` },
  {
    forge: 'forgejo',
    statusPath: `/api/v1/repos/acme/site/statuses/${SHA}`,
    commentsPath: '/api/v1/repos/acme/site/issues/7/comments',
    auth: `token ${TOKEN}`,
  },
];

describe('forge clients against a stand-in forge API', () => {
  let server: ForgeApiServer;
  beforeAll(async () => {
    server = await new ForgeApiServer().start();
  });
  afterAll(() => server.stop());
  beforeEach(() => server.reset());

  const client = (forge: Forge, extra: Partial<ForgeClientOptions> = {}) =>
    forgeClient({ forge, repository: `${server.origin}/acme/site.git`, token: TOKEN, allowPrivateAddresses: true, retry: FAST_RETRY, ...extra });

  describe.each(FORGES)('$forge', ({ forge, statusPath, commentsPath, auth }) => {
    it('sets a commit status on the commit, with the token, at the API of the repository’s host', async () => {
      await client(forge).setCommitStatus(SHA, {
        state: 'pending',
        targetUrl: 'https://main--shop.sites.example/',
        description: 'Building',
        context: 'statichost/shop',
      });
      await client(forge).setCommitStatus(SHA, { state: 'failure', targetUrl: null, description: 'x'.repeat(300), context: 'statichost/shop' });
      expect(server.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`POST ${statusPath}`, `POST ${statusPath}`]);
      expect(server.calls[0].authorization).toBe(auth);
      const [first, second] = server.statuses.map((s) => s.body);
      if (forge === 'gitlab') {
        expect(first).toMatchObject({ state: 'pending', target_url: 'https://main--shop.sites.example/', description: 'Building', name: 'statichost/shop' });
        expect(second).toMatchObject({ state: 'failed' });
      } else {
        expect(first).toMatchObject({ state: 'pending', target_url: 'https://main--shop.sites.example/', description: 'Building', context: 'statichost/shop' });
        expect(second).toMatchObject({ state: 'failure' });
      }
      // Descriptions are cut to what GitHub takes (140 characters).
      expect(second.description).toHaveLength(140);
    });

    it('keeps one comment on the pull request: created once, then edited in place by its id', async () => {
      const someoneElse = server.addComment(7, 'Looks good to me!');
      // Someone copying our marker into their own comment does not get it edited.
      const impostor = server.addComment(7, `${PREVIEW_COMMENT_MARKER}\nPreview: https://evil.example/`);
      const first = await client(forge).upsertPullRequestComment(7, 'Preview: https://pr-7--shop.sites.example/ (commit ec26c3e, ready)', null);
      expect(first.created).toBe(true);
      const second = await client(forge).upsertPullRequestComment(7, 'Preview: https://pr-7--shop.sites.example/ (commit 1234567, failed)', first.commentId);
      expect(second).toEqual({ commentId: first.commentId, created: false });

      const comments = server.comments.get(7)!;
      expect(comments).toHaveLength(3);
      expect(comments.find((c) => c.id === someoneElse)!.body).toBe('Looks good to me!');
      expect(comments.find((c) => c.id === impostor)!.body).toBe(`${PREVIEW_COMMENT_MARKER}\nPreview: https://evil.example/`);
      expect(comments.find((c) => c.id === first.commentId)!.body).toBe(
        `${PREVIEW_COMMENT_MARKER}\nPreview: https://pr-7--shop.sites.example/ (commit 1234567, failed)`,
      );
      // Never a listing: created on the pull request, then addressed by the id it was created with.
      expect(server.calls.map((c) => c.method)).toEqual(['POST', forge === 'gitlab' ? 'PUT' : 'PATCH']);
      expect(server.calls[0].path).toBe(commentsPath);
      expect(server.calls[1].path).toContain(`/${first.commentId}`);
    });

    it('creates the comment again when ours was deleted on the forge (the edit answers 404)', async () => {
      const gone = await client(forge).upsertPullRequestComment(7, 'Preview: first', null);
      server.comments.set(7, []);
      const again = await client(forge).upsertPullRequestComment(7, 'Preview: second', gone.commentId);
      expect(again.created).toBe(true);
      expect(again.commentId).not.toBe(gone.commentId);
      expect(server.comments.get(7)!.map((c) => c.body)).toEqual([`${PREVIEW_COMMENT_MARKER}\nPreview: second`]);
      expect(server.calls.map((c) => c.method)).toEqual(['POST', forge === 'gitlab' ? 'PUT' : 'PATCH', 'POST']);
    });

    it('reports an edit refused for another reason (403) instead of creating a second comment', async () => {
      const ours = await client(forge).upsertPullRequestComment(7, 'Preview: first', null);
      server.failNext(403);
      const err = await client(forge)
        .upsertPullRequestComment(7, 'Preview: second', ours.commentId)
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 403 });
      expect(server.comments.get(7)).toHaveLength(1);
    });

    it('retries a 5xx answer with backoff, and succeeds', async () => {
      server.failNext(502, 503);
      await client(forge).setCommitStatus(SHA, {
        state: 'success',
        targetUrl: 'https://shop.sites.example/',
        description: 'Deployed',
        context: 'statichost/shop',
      });
      expect(server.calls).toHaveLength(3);
      expect(server.statuses).toHaveLength(1);
    });

    it('does not retry a 4xx, and says what failed without the token', async () => {
      server.failNext(401);
      const err = await client(forge)
        .setCommitStatus(SHA, { state: 'success', targetUrl: null, description: 'Deployed', context: 'statichost/shop' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ForgeCallError);
      expect(err).toMatchObject({ forge, operation: 'commit status', status: 401 });
      expect((err as Error).message).toBe(`${forge} commit status failed: HTTP 401`);
      expect(server.calls).toHaveLength(1);
    });

    it('gives up after its retries when the forge keeps failing', async () => {
      server.failNext(500, 500, 500, 500, 500);
      const err = await client(forge)
        .upsertPullRequestComment(7, 'Preview', null)
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 500 });
      expect(server.calls).toHaveLength(1 + FAST_RETRY.retries);
      expect(server.comments.get(7) ?? []).toHaveLength(0);
    });

    it('refuses a forge on a loopback address unless the operator allows private addresses', async () => {
      for (const repository of [`${server.origin}/acme/site.git`, `${server.origin.replace('127.0.0.1', 'localhost')}/acme/site.git`]) {
        const err = await client(forge, { repository, allowPrivateAddresses: false })
          .setCommitStatus(SHA, { state: 'pending', targetUrl: null, description: 'Building', context: 'statichost/shop' })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ForgeCallError);
        expect((err as Error).message).toMatch(
          /(127\.0\.0\.1|::1),? (which )?is a loopback, private, link-local or reserved address: forge API calls there are refused/,
        );
      }
      // Refused before connecting, and not retried.
      expect(server.calls).toHaveLength(0);
    });
  });

  it('retries when nothing answers, then reports why', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    for (const forge of ['github', 'gitlab', 'gitea'] as const) {
      const err = await client(forge, { repository: `http://127.0.0.1:${port}/acme/site.git` })
        .setCommitStatus(SHA, { state: 'pending', targetUrl: null, description: 'Building', context: 'statichost/shop' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ForgeCallError);
      expect([forge, (err as Error).message]).toEqual([forge, expect.stringMatching(/ECONNREFUSED/)]);
    }
  });

  it('addresses a GitLab project in nested groups by its whole path', async () => {
    await client('gitlab', { repository: `${server.origin}/group/sub/site.git` }).setCommitStatus(SHA, {
      state: 'success',
      targetUrl: null,
      description: 'Deployed',
      context: 'statichost/shop',
    });
    expect(server.calls[0].path).toBe(`/api/v4/projects/group%2Fsub%2Fsite/statuses/${SHA}`);
  });

  it('refuses a repository URL it cannot address', () => {
    expect(() => client('github', { repository: `${server.origin}/group/sub/site.git` })).toThrow(RangeError);
    expect(() => client('gitea', { repository: `${server.origin}/site.git` })).toThrow(RangeError);
    expect(() => client('gitlab', { repository: 'git@gitlab.com:acme/site.git' })).toThrow(RangeError);
  });
});
