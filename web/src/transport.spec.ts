import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { createTransport, withCredentials } from './transport';

/**
 * The dashboard's one 401 path, against a real HTTP server: an API that refuses the
 * first JWT, and an /auth/refresh that hands out the next one (or refuses).
 */
describe('transport: one 401 -> refresh -> retry path', () => {
  let server: Server;
  let baseUrl: string;
  let refreshes: { mode: string | undefined }[];
  let requests: { auth: string | undefined; workspace: string | undefined; body: string }[];
  let refreshAnswers: 'new token' | 'refused';
  /** The JWT the API accepts now. */
  let valid: string;
  /** Whether the session's sign-in is recent (PATCH /users/me answers 403 reauthentication_required until it is). */
  let recent: boolean;

  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => resolve(body));
    });

  beforeAll(async () => {
    server = createServer((req, res) => {
      void read(req).then((body) => {
        const json = (status: number, value: unknown) => {
          res.writeHead(status, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(value));
        };
        if (req.url === '/auth/login') return json(200, { accessToken: 'jwt-1', expiresIn: 900, refreshToken: null });
        if (req.url === '/auth/refresh') {
          refreshes.push({ mode: req.headers['x-session-mode'] as string | undefined });
          if (refreshAnswers === 'refused') return json(401, { statusCode: 401, code: 'invalid_refresh_token', message: 'The session has ended' });
          return json(200, { accessToken: `jwt-${refreshes.length + 1}`, expiresIn: 900 });
        }
        requests.push({ auth: req.headers.authorization, workspace: req.headers['x-workspace-id'] as string | undefined, body });
        if (req.url === '/users/me') {
          if (!recent) return json(403, { statusCode: 403, code: 'reauthentication_required', message: 'Changing your email needs a recent sign-in' });
          return json(200, { email: JSON.parse(body || '{}').email });
        }
        if (req.url === '/workspaces/ws_1') return json(403, { statusCode: 403, code: 'owner_required', message: 'Only an owner may' });
        if (req.headers.authorization !== `Bearer ${valid}`)
          return json(401, { statusCode: 401, code: 'invalid_token', message: 'The access token has expired' });
        return json(201, { id: 'prj_1', name: JSON.parse(body || '{}').name });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  beforeEach(() => {
    refreshes = [];
    requests = [];
    refreshAnswers = 'new token';
    valid = 'jwt-2';
    recent = false;
  });

  async function signedIn() {
    const transport = createTransport({ baseUrl, mayHaveSession: () => true });
    const ended = jest.fn();
    transport.session.onEnded(ended);
    await transport.session.signIn('a@example.com', 'pw');
    return { transport, ended };
  }

  it('a refused JWT is refreshed once (cookie mode) and the same request, body and workspace included, is sent again', async () => {
    const { transport, ended } = await signedIn();
    const { data, response } = await transport.api.POST('/projects', { body: { name: 'Site' }, headers: { 'X-Workspace-Id': 'ws_1' } });
    expect(response.status).toBe(201);
    expect(data).toEqual({ id: 'prj_1', name: 'Site' });
    expect(refreshes).toEqual([{ mode: 'cookie' }]);
    expect(requests).toEqual([
      { auth: 'Bearer jwt-1', workspace: 'ws_1', body: '{"name":"Site"}' },
      { auth: 'Bearer jwt-2', workspace: 'ws_1', body: '{"name":"Site"}' },
    ]);
    expect(ended).not.toHaveBeenCalled();
    // The fresh JWT is the session's now: the next request needs no refresh.
    await transport.api.GET('/projects');
    expect(requests.at(-1)?.auth).toBe('Bearer jwt-2');
    expect(refreshes).toHaveLength(1);
  });

  it('a 401 after the refresh is not retried again: the answer is the 401, one refresh, two sends', async () => {
    valid = 'never';
    const { transport, ended } = await signedIn();
    const { response } = await transport.api.GET('/projects');
    expect(response.status).toBe(401);
    expect(refreshes).toHaveLength(1);
    expect(requests.map((r) => r.auth)).toEqual(['Bearer jwt-1', 'Bearer jwt-2']);
    expect(ended).not.toHaveBeenCalled();
  });

  it('a refused refresh ends the session: listeners are told, the 401 is answered, nothing is sent again', async () => {
    refreshAnswers = 'refused';
    const { transport, ended } = await signedIn();
    const { response } = await transport.api.GET('/projects');
    expect(response.status).toBe(401);
    expect(ended).toHaveBeenCalledTimes(1);
    expect(requests).toHaveLength(1);
    expect(transport.session.has()).toBe(false);
  });

  it('signed out, a 401 is answered as it is (no refresh without a session)', async () => {
    const transport = createTransport({ baseUrl, mayHaveSession: () => false });
    const { response } = await transport.api.GET('/projects');
    expect(response.status).toBe(401);
    expect(refreshes).toHaveLength(0);
    expect(requests).toEqual([{ auth: undefined, workspace: undefined, body: '' }]);
  });

  it('any sender (the uploads use XMLHttpRequest) takes the same path: the second attempt carries the fresh JWT', async () => {
    const { transport } = await signedIn();
    const attempts: [string | null, number][] = [];
    const answer = await withCredentials(transport.session, async (token, attempt) => {
      attempts.push([token, attempt]);
      return { status: token === 'jwt-2' ? 201 : 401 };
    });
    expect(answer.status).toBe(201);
    expect(attempts).toEqual([
      ['jwt-1', 1],
      ['jwt-2', 2],
    ]);
    expect(refreshes).toHaveLength(1);
  });

  describe('a change refused for want of a recent sign-in', () => {
    it('asks the confirmer with the refusal’s message, and once confirmed sends the same change again', async () => {
      valid = 'jwt-1';
      const { transport } = await signedIn();
      const asked: string[] = [];
      transport.onReauthenticationRequired(async (message) => {
        asked.push(message);
        recent = true;
        return true;
      });
      const { data, response } = await transport.api.PATCH('/users/me', { body: { email: 'new@example.com' } });
      expect(response.status).toBe(200);
      expect(data).toEqual({ email: 'new@example.com' });
      expect(asked).toEqual(['Changing your email needs a recent sign-in']);
      // The change again, whole, with the session's JWT.
      expect(requests.map((r) => [r.auth, r.body])).toEqual([
        ['Bearer jwt-1', '{"email":"new@example.com"}'],
        ['Bearer jwt-1', '{"email":"new@example.com"}'],
      ]);
    });

    it('a person who cancels gets the 403 as it is, sent once', async () => {
      valid = 'jwt-1';
      const { transport } = await signedIn();
      transport.onReauthenticationRequired(async () => false);
      const { error, response } = await transport.api.PATCH('/users/me', { body: { email: 'new@example.com' } });
      expect(response.status).toBe(403);
      expect(error).toMatchObject({ code: 'reauthentication_required' });
      expect(requests).toHaveLength(1);
    });

    it('any other 403 is answered without asking, and so is every 403 once the confirmer is gone', async () => {
      valid = 'jwt-1';
      const { transport } = await signedIn();
      const confirmer = jest.fn(async () => true);
      const unsubscribe = transport.onReauthenticationRequired(confirmer);
      expect((await transport.api.PATCH('/workspaces/{workspaceId}', { params: { path: { workspaceId: 'ws_1' } }, body: { name: 'x' } })).response.status).toBe(
        403,
      );
      unsubscribe();
      expect((await transport.api.PATCH('/users/me', { body: { email: 'new@example.com' } })).response.status).toBe(403);
      expect(confirmer).not.toHaveBeenCalled();
    });
  });
});
