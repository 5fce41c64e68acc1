import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ContainerRunner } from './podman-runner';
import { ProcessRunner } from './process-runner';
import { type BuildRunner, BuildsUnavailableError } from './runner';
import { findOnPath, type RunnerConfig, selectRunner, UNSANDBOXED_WARNING } from './select-runner';

const base: RunnerConfig = {
  NODE_ENV: 'development',
  BUILD_RUNNER: undefined,
  BUILD_IMAGE: 'localhost/build:test',
  BUILD_CPUS: 1,
  BUILD_MEMORY_MB: 512,
  BUILD_PIDS_LIMIT: 128,
  BUILD_CA_BUNDLE: undefined,
};
const installed =
  (...names: string[]) =>
  (binary: string) =>
    names.includes(binary) ? `/usr/bin/${binary}` : null;
const processRunner = { name: 'process' } as BuildRunner;

describe('selectRunner', () => {
  it('unset: podman when it is on PATH, even when docker is too', () => {
    const runner = selectRunner(base, installed('podman', 'docker'));
    expect(runner).toBeInstanceOf(ContainerRunner);
    expect(runner.name).toBe('podman');
  });

  it('unset: docker when podman is not on PATH', () => {
    expect(selectRunner(base, installed('docker')).name).toBe('docker');
  });

  it('unset and neither installed: builds are unavailable, naming what to install; process is never the default', () => {
    const createProcessRunner = jest.fn(() => processRunner);
    for (const NODE_ENV of ['development', 'test', 'production'] as const) {
      expect(() => selectRunner({ ...base, NODE_ENV }, installed(), { createProcessRunner })).toThrow(
        new BuildsUnavailableError('install podman or docker, or set BUILD_RUNNER'),
      );
    }
    expect(createProcessRunner).not.toHaveBeenCalled();
  });

  it('BUILD_RUNNER picks the engine, and is unavailable when that one is missing', () => {
    expect(selectRunner({ ...base, BUILD_RUNNER: 'docker' }, installed('podman', 'docker')).name).toBe('docker');
    expect(() => selectRunner({ ...base, BUILD_RUNNER: 'podman' }, installed('docker'))).toThrow(BuildsUnavailableError);
    expect(() => selectRunner({ ...base, BUILD_RUNNER: 'podman' }, installed('docker'))).toThrow(/install podman/);
  });

  it('BUILD_RUNNER=process: the process runner, with a warning that builds run unsandboxed', () => {
    const warn = jest.fn();
    expect(selectRunner({ ...base, BUILD_RUNNER: 'process' }, installed('podman'), { createProcessRunner: () => processRunner, warn })).toBe(processRunner);
    expect(warn).toHaveBeenCalledWith(UNSANDBOXED_WARNING);
    expect(selectRunner({ ...base, BUILD_RUNNER: 'process' }, installed(), { warn })).toBeInstanceOf(ProcessRunner);
  });

  it('BUILD_RUNNER=process with NODE_ENV=production stops the start-up with a clear message', () => {
    const createProcessRunner = jest.fn(() => processRunner);
    expect(() => selectRunner({ ...base, NODE_ENV: 'production', BUILD_RUNNER: 'process' }, installed(), { createProcessRunner })).toThrow(
      /BUILD_RUNNER=process .* refused with NODE_ENV=production/,
    );
    expect(() => selectRunner({ ...base, NODE_ENV: 'production', BUILD_RUNNER: 'process' }, installed())).not.toThrow(BuildsUnavailableError);
    expect(createProcessRunner).not.toHaveBeenCalled();
  });
});

describe('findOnPath', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'find-on-path-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds an executable file, skipping non-executables, directories and relative PATH entries', () => {
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    mkdirSync(join(dir, 'c', 'podman'), { recursive: true });
    writeFileSync(join(dir, 'a', 'podman'), '');
    chmodSync(join(dir, 'a', 'podman'), 0o644);
    writeFileSync(join(dir, 'b', 'podman'), '#!/bin/sh\n');
    chmodSync(join(dir, 'b', 'podman'), 0o755);
    const path = ['relative/bin', join(dir, 'c'), join(dir, 'a'), join(dir, 'b')].join(':');
    // root may execute a 0644 file per access(2) only if some x bit is set: none is here.
    expect(findOnPath('podman', path)).toBe(join(dir, 'b', 'podman'));
    expect(findOnPath('docker', path)).toBeNull();
  });
});
