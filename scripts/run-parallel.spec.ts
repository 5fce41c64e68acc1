import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/*
 * `npm test` runs lint and typecheck through scripts/run-parallel.js: it must fail when
 * either fails, wait for both, and print each one's output whole. npm is stood in for by a
 * script (npm_execpath, as inside `npm run`) that prints its name and exits as named.
 */
const RUNNER = join(__dirname, 'run-parallel.js');

describe('scripts/run-parallel.js', () => {
  let dir: string;
  let npm: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'run-parallel-'));
    npm = join(dir, 'npm-cli.js');
    // `run <name>`: "fail…" exits 1; "slow…" ends after the others; each writes two lines.
    writeFileSync(
      npm,
      `const name = process.argv[3];
       process.stdout.write(name + ' line 1\\n');
       setTimeout(() => { process.stdout.write(name + ' line 2\\n'); process.exit(name.startsWith('fail') ? 1 : 0); }, name.startsWith('slow') ? 400 : 10);`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (...names: string[]) =>
    promisify(execFile)(process.execPath, [RUNNER, ...names], { env: { ...process.env, npm_execpath: npm } }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );

  it('passes when every script passes, with each output whole', async () => {
    const { code, stdout } = await run('slow-lint', 'typecheck');
    expect(code).toBe(0);
    expect(stdout).toContain('typecheck line 1\ntypecheck line 2\n');
    expect(stdout).toContain('slow-lint line 1\nslow-lint line 2\n');
    expect(stdout).toMatch(/✓ npm run slow-lint: passed/);
  });

  it('fails when one fails, after waiting for the other', async () => {
    const { code, stdout } = await run('fail-lint', 'slow-typecheck');
    expect(code).toBe(1);
    expect(stdout).toMatch(/✗ npm run fail-lint: failed \(exit 1\)/);
    expect(stdout).toMatch(/✓ npm run slow-typecheck: passed/);
  });
});
