import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A client registered at the test provider. */
export interface OidcClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}

/**
 * A real OpenID provider (oidc-provider) in a child process (test/helpers/oidc-provider.mjs):
 * ESM and its own event loop, so jest need not compile it and a slow test cannot stall it.
 */
export interface TestOidcProvider {
  issuer: string;
  /** What signing in as `email` at the provider yields (default: verified, named after the address). */
  setAccount(account: { email: string; email_verified: boolean; name?: string }): Promise<void>;
  /** `foreign-id-token`: the token endpoint answers with an ID token (validly signed) for another client. */
  setMischief(mode: 'foreign-id-token' | null): Promise<void>;
  /** Everything it wrote to stderr (its errors). */
  stderr: string[];
  close(): Promise<void>;
}

export async function startOidcProvider(clients: OidcClient[]): Promise<TestOidcProvider> {
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'oidc-provider.mjs'), JSON.stringify({ clients })], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk) => stderr.push(String(chunk)));
  const issuer = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve((JSON.parse(line) as { issuer: string }).issuer));
    child.once('exit', (code) => reject(new Error(`the OIDC provider exited (${code}): ${stderr.join('')}`)));
  });
  const control = async (path: string, body: unknown) => {
    const res = await fetch(`${issuer}/__control/${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (res.status !== 204) throw new Error(`OIDC provider control ${path}: ${res.status}`);
  };
  return {
    issuer,
    stderr,
    setAccount: (account) => control('accounts', { name: account.email, ...account }),
    setMischief: (mode) => control('mischief', { mode }),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}
