import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/*
 * The SDKs only one configuration or one kind of work uses are loaded when it happens, not
 * with the app: each is hundreds of modules, and every start (each e2e test file boots the
 * app, so `npm test` pays it a hundred times) would load them for nothing.
 */
const LAZY = ['stripe', '@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@octokit/rest', '@gitbeaker/rest', '@netlify/build-info', 'zod'];

const ROOT = join(__dirname, '..');

/** The packages src/ asks for while the app's modules load, in a fresh Node process (no jest registry). */
async function packagesLoadedBy(entry: string): Promise<string[]> {
  const script = `
    const Module = require('node:module');
    const load = Module._load;
    const asked = new Set();
    Module._load = function (request, parent, isMain) {
      if (!request.startsWith('.') && !request.startsWith('node:') && !request.includes('node_modules')) asked.add(request);
      return load.call(this, request, parent, isMain);
    };
    require(${JSON.stringify(entry)});
    process.stdout.write(JSON.stringify([...asked]));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['-r', '@swc-node/register', '-e', script], { cwd: ROOT, maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as string[];
}

describe('what starting the app loads', () => {
  it('leaves Stripe, the AWS SDK, the forge clients, the webhook schemas and the build detector until they are used', async () => {
    const loaded = await packagesLoadedBy(join(ROOT, 'src/app.factory'));
    // The probe itself works: the app's own framework is in the list.
    expect(loaded).toContain('@nestjs/core');
    expect(LAZY.filter((name) => loaded.some((request) => request === name || request.startsWith(`${name}/`)))).toEqual([]);
  }, 120_000);
});
