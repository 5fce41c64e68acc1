import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A real Git server for build tests: bare repositories served over smart HTTP by git's
 * own `git http-backend` (a CGI program) behind a Node HTTP server on 127.0.0.1.
 * A private repository asks for HTTP Basic auth whose password is its token (any user
 * name, as GitHub's `x-access-token:<token>` and Gitea's token-as-password work).
 * The server runs in the calling process: clone with async child processes, never execFileSync.
 */
export interface GitServer {
  /** http://127.0.0.1:<port> */
  readonly baseUrl: string;
  /** The clone URL of a repository: `<baseUrl>/<name>.git` (`name` may be `owner/repo`). */
  url(name: string): string;
  /** Creates a bare repository with one commit of `files` on `branch` (default main); returns the commit's sha. */
  createRepo(name: string, files: Record<string, string>, options?: { branch?: string; message?: string; token?: string }): string;
  /** Commits `files` (added or replaced; a null value deletes the file) on `branch`, creating the branch from `from` (default main) if new; returns the sha. */
  commit(name: string, files: Record<string, string | null>, options?: { branch?: string; from?: string; message?: string }): string;
  /** Deletes a branch. */
  deleteBranch(name: string, branch: string): void;
  /** Points any ref at a commit, as a forge keeps `refs/pull/<n>/head` (GitLab `refs/merge-requests/<n>/head`) on the base repository. */
  setRef(name: string, ref: string, sha: string): void;
  /** Requests seen, as `METHOD /path?query` (auth failures included). */
  readonly requests: string[];
  close(): Promise<void>;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.test',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: tmpdir(),
};

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
}

export interface GitServerOptions {
  /**
   * Answers every `/api/*` request (the forges' REST APIs live there: `/api/v3` GitHub
   * Enterprise, `/api/v4` GitLab, `/api/v1` Gitea and Forgejo), e.g. `ForgeApiServer.handler`
   * from test/forges/forge-api-server.ts. One host and port then plays both the Git host and
   * its forge's API, as in production, where the API's address follows the repository's host.
   */
  api?: (req: IncomingMessage, res: ServerResponse) => void;
}

export async function startGitServer(options: GitServerOptions = {}): Promise<GitServer> {
  const root = mkdtempSync(join(tmpdir(), 'git-server-'));
  const tokens = new Map<string, string>();
  const requests: string[] = [];

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (options.api && url.pathname.startsWith('/api/')) {
      options.api(req, res);
      return;
    }
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    // `owner/name` repositories too: GitHub and Gitea API paths need an owner.
    const repo = /^\/(.+?)\.git\//.exec(url.pathname)?.[1];
    const token = repo ? tokens.get(repo) : undefined;
    if (token !== undefined) {
      const header = req.headers.authorization ?? '';
      const basic = /^Basic (.+)$/i.exec(header);
      const password = basic ? Buffer.from(basic[1], 'base64').toString('utf8').split(':').slice(1).join(':') : '';
      if (password !== token) {
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end('authentication required\n');
        return;
      }
    }
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        CONTENT_LENGTH: req.headers['content-length'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_ADDR: req.socket.remoteAddress ?? '',
        REMOTE_USER: 'git',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => res.end());
    cgi.on('error', () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const bare = (name: string) => join(root, `${name}.git`);
  const withWorkTree = <T>(name: string, branch: string, from: string | undefined, work: (dir: string) => T): T => {
    const dir = mkdtempSync(join(tmpdir(), 'git-work-'));
    try {
      git(dir, ['init', '-q', '-b', branch]);
      git(dir, ['remote', 'add', 'origin', bare(name)]);
      const base = from ?? branch;
      const has = git(dir, ['ls-remote', 'origin', `refs/heads/${base}`]);
      if (has) {
        git(dir, ['fetch', '-q', 'origin', base]);
        git(dir, ['reset', '-q', '--hard', 'FETCH_HEAD']);
      }
      return work(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const writeFiles = (dir: string, files: Record<string, string | null>) => {
    for (const [path, content] of Object.entries(files)) {
      const full = join(dir, path);
      if (content === null) rmSync(full, { force: true });
      else {
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, content);
      }
    }
  };

  const commit: GitServer['commit'] = (name, files, options = {}) => {
    const branch = options.branch ?? 'main';
    return withWorkTree(name, branch, options.from ?? 'main', (dir) => {
      // A new branch starts from `from`; an existing one continues from its own head.
      const exists = git(dir, ['ls-remote', 'origin', `refs/heads/${branch}`]);
      if (exists) {
        git(dir, ['fetch', '-q', 'origin', branch]);
        git(dir, ['reset', '-q', '--hard', 'FETCH_HEAD']);
      }
      writeFiles(dir, files);
      git(dir, ['add', '-A']);
      git(dir, ['commit', '-q', '--allow-empty', '-m', options.message ?? `update ${branch}`]);
      git(dir, ['push', '-q', 'origin', `HEAD:refs/heads/${branch}`]);
      return git(dir, ['rev-parse', 'HEAD']);
    });
  };

  return {
    baseUrl,
    requests,
    url: (name) => `${baseUrl}/${name}.git`,
    createRepo(name, files, options = {}) {
      execFileSync('git', ['init', '-q', '--bare', '-b', options.branch ?? 'main', bare(name)], { env: { ...process.env, ...GIT_ENV } });
      if (options.token !== undefined) tokens.set(name, options.token);
      return commit(name, files, { branch: options.branch ?? 'main', from: options.branch ?? 'main', message: options.message ?? 'first commit' });
    },
    commit,
    deleteBranch(name, branch) {
      git(bare(name), ['update-ref', '-d', `refs/heads/${branch}`]);
    },
    setRef(name, ref, sha) {
      git(bare(name), ['update-ref', ref, sha]);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(root, { recursive: true, force: true });
    },
  };
}
