import { execFileSync } from 'node:child_process';

import { type ContainerRunArgs, containerRunArgs, containerWorkdir, shellEnvFile } from './podman-runner';

const base: ContainerRunArgs = {
  engine: 'podman',
  name: 'statichost-build-0123',
  image: 'localhost/build:test',
  pull: 'never',
  user: '1000:1000',
  keepId: false,
  cpus: 1.5,
  memoryMb: 512,
  pidsLimit: 100,
  tmpfsMb: 64,
  network: 'statichost-builds',
  checkoutDir: '/data/builds/b1/checkout',
  cacheDir: '/data/builds/b1/cache',
  envFile: '/tmp/env/build.env',
  workdir: '/workspace/site',
  command: 'npm run build',
};

describe('containerRunArgs', () => {
  it('a fresh locked-down container: read-only root, no capabilities, limits, only the checkout and cache writable', () => {
    const args = containerRunArgs(base);
    const joined = args.join(' ');
    for (const part of [
      'run --rm --name statichost-build-0123',
      '--pull=never',
      '--user 1000:1000',
      '--read-only --read-only-tmpfs=false',
      '--tmpfs /tmp:rw,nosuid,nodev,size=64m,mode=1777',
      '--cap-drop=ALL --security-opt no-new-privileges',
      '--cpus 1.5 --memory 512m --memory-swap 512m --pids-limit 100',
      '--network statichost-builds',
      '-v /data/builds/b1/checkout:/workspace:rw -v /data/builds/b1/cache:/cache:rw -v /tmp/env/build.env:/run/statichost/build.env:ro',
      '--workdir /workspace/site',
      '--entrypoint /bin/sh localhost/build:test -c',
    ]) {
      expect(joined).toContain(part);
    }
    expect(args.at(-1)).toBe('npm run build');
    expect(args.filter((a) => a.endsWith(':rw'))).toHaveLength(2);
    expect(args).not.toContain('--userns=keep-id');
  });

  it('docker gets no podman-only flags; a CA bundle is mounted read-only', () => {
    const args = containerRunArgs({ ...base, engine: 'docker', caBundle: '/etc/ssl/corp.pem' });
    expect(args).not.toContain('--read-only-tmpfs=false');
    expect(args).not.toContain('--no-hosts');
    expect(args.join(' ')).toContain('-v /etc/ssl/corp.pem:/etc/statichost/build-ca.pem:ro');
  });

  it('runs the command after sourcing the env file, so no value is an argument', () => {
    const args = containerRunArgs(base);
    expect(args.slice(-4)).toEqual(['-c', '. /run/statichost/build.env && exec /bin/sh -c "$1"', 'statichost-build', 'npm run build']);
  });
});

describe('shellEnvFile', () => {
  it('any value survives sh (quotes, newlines, $(...), backticks)', () => {
    const env = { A: `it's "x"\n$(touch /tmp/never) \`id\` \\ $HOME`, EMPTY: '' };
    const out = execFileSync('/bin/sh', ['-c', `eval "$(/bin/cat)"; printf '%s' "$A"`], { input: shellEnvFile(env), encoding: 'utf8', env: {} });
    expect(out).toBe(env.A);
  });

  it('refuses a name sh would not take as a plain variable', () => {
    expect(() => shellEnvFile({ 'A;touch /x': '1' })).toThrow(/name refused/);
    expect(() => shellEnvFile({ '1A': '1' })).toThrow(/name refused/);
  });
});

describe('containerWorkdir', () => {
  it('maps into /workspace and refuses a way out', () => {
    expect(containerWorkdir('')).toBe('/workspace');
    expect(containerWorkdir('site')).toBe('/workspace/site');
    expect(containerWorkdir('apps/web/')).toBe('/workspace/apps/web');
    expect(() => containerWorkdir('../etc')).toThrow(/leaves the checkout/);
    expect(() => containerWorkdir('a/../../b')).toThrow(/leaves the checkout/);
    expect(() => containerWorkdir('/etc')).toThrow(/leaves the checkout/);
  });
});
