import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stand-in forge received. */
export interface RecordedCall {
  method: string;
  /** Path and query, as sent (percent-encoding kept). */
  path: string;
  authorization: string | undefined;
  body: any;
}

interface Comment {
  id: number;
  body: string;
}

/**
 * A stand-in for the parts of the GitHub (v3), GitLab (v4) and Gitea/Forgejo (v1) REST
 * APIs a build uses: commit statuses and pull request comments, kept in memory and
 * answered the way each forge documents (201 with the created object, the comment list,
 * the edited comment). It records every request, and can be told to fail the next ones.
 * The forges are not reachable from here; the real clients are pointed at this.
 */
export class ForgeApiServer {
  readonly calls: RecordedCall[] = [];
  /** Comments per pull request number. */
  readonly comments = new Map<number, Comment[]>();
  readonly statuses: { sha: string; body: any }[] = [];
  private failures: number[] = [];
  private nextId = 1000;
  private server: Server | undefined;
  origin = '';

  /** The request handler, to mount on another server (`startGitServer({ api })`) instead of `start()`. */
  readonly handler = (req: IncomingMessage, res: ServerResponse): void => void this.handle(req, res);

  async start(): Promise<this> {
    this.server = createServer(this.handler);
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    const server = this.server;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The next requests answer these statuses, one each, before normal answers resume. */
  failNext(...statuses: number[]): void {
    this.failures.push(...statuses);
  }

  /** A comment someone else wrote, already on the pull request. */
  addComment(pullRequest: number, body: string): number {
    const id = this.nextId++;
    this.list(pullRequest).push({ id, body });
    return id;
  }

  reset(): void {
    this.calls.length = 0;
    this.comments.clear();
    this.statuses.length = 0;
    this.failures = [];
  }

  private list(pullRequest: number): Comment[] {
    if (!this.comments.has(pullRequest)) this.comments.set(pullRequest, []);
    return this.comments.get(pullRequest)!;
  }

  private findComment(id: number): Comment | undefined {
    for (const list of this.comments.values()) {
      const found = list.find((c) => c.id === id);
      if (found) return found;
    }
    return undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any = text;
    if (text && /json/.test(req.headers['content-type'] ?? '')) body = JSON.parse(text);
    const path = req.url ?? '/';
    this.calls.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization ?? req.headers['private-token']?.toString(), body });

    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const failure = this.failures.shift();
    if (failure !== undefined) return send(failure, { message: `stand-in failure ${failure}` });

    const route = `${req.method} ${path.split('?')[0]}`;
    let m: RegExpExecArray | null;
    // Commit statuses: GitHub and Gitea POST .../statuses/:sha, GitLab POST /projects/:id/statuses/:sha.
    if (
      (m = /^POST \/api\/(?:v3|v1)\/repos\/[^/]+\/[^/]+\/statuses\/([0-9a-f]+)$/.exec(route)) ||
      (m = /^POST \/api\/v4\/projects\/[^/]+\/statuses\/([0-9a-f]+)$/.exec(route))
    ) {
      this.statuses.push({ sha: m[1], body });
      return send(201, { id: this.nextId++, ...(typeof body === 'object' ? body : {}) });
    }
    // Pull request comments: GitHub and Gitea as issue comments, GitLab as merge request notes.
    if (
      (m = /^GET \/api\/(?:v3|v1)\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(route)) ||
      (m = /^GET \/api\/v4\/projects\/[^/]+\/merge_requests\/(\d+)\/notes$/.exec(route))
    ) {
      return send(200, this.list(Number(m[1])));
    }
    if (
      (m = /^POST \/api\/(?:v3|v1)\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(route)) ||
      (m = /^POST \/api\/v4\/projects\/[^/]+\/merge_requests\/(\d+)\/notes$/.exec(route))
    ) {
      const comment = { id: this.nextId++, body: String(body.body) };
      this.list(Number(m[1])).push(comment);
      return send(201, comment);
    }
    if (
      (m = /^PATCH \/api\/(?:v3|v1)\/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(route)) ||
      (m = /^PUT \/api\/v4\/projects\/[^/]+\/merge_requests\/\d+\/notes\/(\d+)$/.exec(route))
    ) {
      const comment = this.findComment(Number(m[1]));
      if (!comment) return send(404, { message: 'Not Found' });
      comment.body = String(body.body);
      return send(200, comment);
    }
    send(404, { message: `no route ${route}` });
  }
}
