import { createReadStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

import { Injectable } from '@nestjs/common';

import { formatBytes } from '../../../packages/shared/format-bytes';
import { hashFiles } from '../../../packages/shared/local-files';
import { mapLimit } from '../../../packages/shared/map-limit';
import { BlobStore } from '../../blobs/blob-store.service';
import { ApiError } from '../../common/errors';
import { AppConfig } from '../../config/app-config';
import { DeployService } from '../../deployments/deploy.service';
import {
  assertRepositoryAllowed,
  hostLookup,
  type Lookup,
  RepositoryLookupFailed,
  RepositoryNotAllowed,
  type ResolvedRepository,
} from '../../git/repository-url';
import { workspaceOf } from '../../shared/principal';
import { parseTtl, type Ttl } from '../../shared/ttl';
import { StorageProvider } from '../../storage/storage.provider';
import { cacheEnv, lockFileHashKey, nodeMajorOf, restoreCache, saveCache } from './dependency-cache';
import { detectBuild, type Detection, OUTPUT_CANDIDATES } from './detect';
import { cloneRef } from './git-clone';
import { collectOutput, findOutputFolder, relativeFolderProblem } from './output';
import { LineMasker, maskSecrets, secretsOf } from './secret-mask';
import { BuildFailure, type BuildPhase, type DetectedBuild, type PipelineJob, type PipelineResult } from './types';

/** Blobs stored at once during the upload. */
const UPLOAD_CONCURRENCY = 8;
/** A build id is a folder name under the work dir: nothing else. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** Where the commands look for programs besides the site's node_modules/.bin: the usual ones of a Debian image. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * What a builder does with one build: clone the commit (here, with git as a child
 * process), detect what to run, restore the dependency cache, run install and build in
 * the runner's sandbox, then deploy the output folder through the digest-first path
 * the CLI uses (blob by hash, then a manifest of hashes), so the same files make the
 * same version whoever deploys them.
 *
 * Failures the author can act on are BuildFailure (their message goes on the record);
 * an aborted job rejects with `job.signal.reason`; anything else is the platform's.
 * The work folder is removed whatever happens.
 */
@Injectable()
export class BuildPipeline {
  constructor(
    private readonly config: AppConfig,
    private readonly storage: StorageProvider,
    private readonly blobs: BlobStore,
    private readonly deployer: DeployService,
  ) {
    const servers = (config.DNS_SERVERS ?? '')
      .split(',')
      .map((server) => server.trim())
      .filter(Boolean);
    this.lookup = hostLookup(config.DNS_TIMEOUT_MS, servers);
    this.previewTtl = parseTtl(config.PREVIEW_TTL, 'PREVIEW_TTL');
  }

  private readonly previewTtl: Ttl;

  private readonly lookup: Lookup;

  /** The builders' scratch folder: `BUILD_WORK_DIR`, else `<DATA_DIR>/builds`. */
  get workRoot(): string {
    return resolve(this.config.BUILD_WORK_DIR ?? join(this.config.DATA_DIR, 'builds'));
  }

  async run(job: PipelineJob): Promise<PipelineResult> {
    if (!SAFE_ID.test(job.buildId)) throw new Error(`build id ${JSON.stringify(job.buildId)} cannot name a work folder`);
    const work = join(this.workRoot, job.buildId);
    await rm(work, { recursive: true, force: true });
    await mkdir(work, { recursive: true, mode: 0o700 });
    try {
      return await this.runIn(job, work);
    } catch (err) {
      // Whatever failed while the job was being aborted, the abort is what happened.
      if (job.signal.aborted) throw job.signal.reason ?? err;
      throw err;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  private async runIn(job: PipelineJob, work: string): Promise<PipelineResult> {
    const { inputs, signal } = job;
    const secrets = secretsOf([...Object.values(inputs.env), inputs.accessToken]);
    const say = (phase: BuildPhase, text: string) => job.log.write(phase, maskSecrets(text, secrets), 'system');
    const checkoutDir = join(work, 'checkout');
    const cacheDir = join(work, 'cache');
    const scratch = join(work, 'scratch');
    await Promise.all([mkdir(checkoutDir), mkdir(cacheDir), mkdir(scratch)]);

    // --- clone
    say('clone', `Cloning ${inputs.repository} at ${job.ref}`);
    if (job.fork) {
      say(
        'clone',
        'built as code from outside the repository (a fork’s pull request, or a commit no build of its branches, tags or pull requests has checked out): without the project’s variables',
      );
    }
    const checked = await this.checkRepository(inputs.repository);
    const commit = await cloneRef({
      repository: checked.url,
      pin: { host: checked.host, port: checked.port, addresses: checked.addresses },
      ref: job.ref,
      dir: checkoutDir,
      access: {
        allowHttp: this.config.GIT_ALLOW_PRIVATE_ADDRESSES,
        accessToken: inputs.accessToken,
        home: join(work, 'git-home'),
        path: process.env.PATH ?? SYSTEM_PATH,
      },
      signal,
      log: (line) => say('clone', line),
    });
    await job.onResolved?.(commit);
    signal.throwIfAborted();

    // --- detect
    const rootProblem = relativeFolderProblem(inputs.rootDirectory);
    if (rootProblem) throw new BuildFailure(`rootDirectory "${inputs.rootDirectory}" ${rootProblem}`);
    const siteDir = join(checkoutDir, inputs.rootDirectory);
    if (!(await stat(siteDir).catch(() => undefined))?.isDirectory()) {
      throw new BuildFailure(`rootDirectory "${inputs.rootDirectory}" is not a folder of the repository at ${commit.sha.slice(0, 12)}`);
    }
    const detection = await detectBuild(siteDir, inputs);
    say('detect', describeDetection(detection));

    const paths = job.runner.sandboxPaths(checkoutDir, cacheDir);
    const siteInSandbox = inputs.rootDirectory === '' ? paths.checkout : `${paths.checkout}/${inputs.rootDirectory}`;
    const env: Record<string, string> = {
      ...inputs.env,
      CI: 'true',
      HOME: `${paths.cache}/home`,
      PATH: [`${siteInSandbox}/node_modules/.bin`, ...(job.runner.name === 'process' ? [dirname(process.execPath)] : []), SYSTEM_PATH].join(':'),
      LANG: 'C.UTF-8',
      npm_config_update_notifier: 'false',
      ...cacheEnv(paths.cache, detection.packageManager),
    };
    await mkdir(join(cacheDir, 'home'));
    const run = async (phase: BuildPhase, command: string) => {
      say(phase, `$ ${command}`);
      const out = new LineMasker(secrets, (line) => job.log.write(phase, line, 'stdout'));
      const err = new LineMasker(secrets, (line) => job.log.write(phase, line, 'stderr'));
      const started = performance.now();
      const result = await job.runner.run({
        command,
        checkoutDir,
        workdir: inputs.rootDirectory,
        cacheDir,
        env,
        signal,
        onOutput: (chunk, stream) => (stream === 'stdout' ? out : err).write(chunk),
      });
      out.flush();
      err.flush();
      signal.throwIfAborted();
      if (result.exitCode !== 0) {
        throw new BuildFailure(`${phase} command exited with ${result.exitCode ?? `signal ${result.signal ?? 'unknown'}`}`);
      }
      say(phase, `${phase} finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    };

    // --- install (the dependency cache around it)
    if (detection.installCommand) {
      let cacheKey: string | undefined;
      // Saved after the install only when none was stored: an unchanged lock file's cache is written once.
      let saveAfter = false;
      if (detection.packageManager && detection.lockFile) {
        const nodeMajor = inputs.nodeVersion
          ? nodeMajorOf(inputs.nodeVersion)
          : job.runner.name === 'process'
            ? nodeMajorOf(process.version)
            : this.config.BUILD_IMAGE;
        cacheKey = await lockFileHashKey(inputs.projectId, join(siteDir, detection.lockFile), detection.packageManager, nodeMajor);
        try {
          const restored = await restoreCache(this.storage, cacheKey, cacheDir, scratch);
          saveAfter = !restored && !job.fork;
          say('install', restored ? `restored dependency cache ${cacheKey}` : `no dependency cache yet for this lock file (${cacheKey})`);
          if (!restored && job.fork) say('install', 'a fork’s build does not save the dependency cache');
        } catch (err) {
          // A cache is an optimisation: a broken one costs a full download, never the build.
          say('install', `could not restore dependency cache ${cacheKey} (${(err as Error).message}): installing without it`);
          await emptyFolder(cacheDir);
          await mkdir(join(cacheDir, 'home'));
          // Not saved over either: a store that just failed to give it back is not written to blindly.
        }
      } else {
        say('install', 'no lock file: dependencies are not cached');
      }
      await run('install', detection.installCommand);
      if (cacheKey && saveAfter && detection.packageManager) {
        try {
          const size = await saveCache(this.storage, cacheKey, cacheDir, detection.packageManager, scratch);
          if (size > 0) say('install', `saved dependency cache ${cacheKey} (${formatBytes(size)})`);
        } catch (err) {
          say('install', `could not save dependency cache ${cacheKey} (${(err as Error).message}); the next build installs without it`);
        }
      }
    }

    // --- build
    if (detection.buildCommand) await run('build', detection.buildCommand);
    else say('build', 'no build command: the files are deployed as they are');

    let outputDirectory = detection.outputDirectory;
    if (outputDirectory === null) {
      const found = await findOutputFolder(siteDir, OUTPUT_CANDIDATES);
      if (found === undefined) {
        throw new BuildFailure(`no output folder: the build wrote none of ${OUTPUT_CANDIDATES.join(', ')}; set outputDirectory in the project's Git settings`);
      }
      outputDirectory = found;
      say('build', `output folder: ${found}`);
    }
    const detected: DetectedBuild = {
      framework: detection.framework,
      packageManager: detection.packageManager,
      installCommand: detection.installCommand,
      buildCommand: detection.buildCommand,
      outputDirectory,
    };

    // --- upload (digest first: each blob the workspace does not have, by hash)
    const output = await collectOutput(checkoutDir, inputs.rootDirectory, outputDirectory);
    for (const skipped of output.skipped.filter((s) => s.outside)) say('upload', `skipped ${skipped.path}: ${skipped.reason}`);
    const files = await hashFiles(output.files);
    signal.throwIfAborted();
    const workspaceId = workspaceOf(job.principal);
    const unique = [...new Map(files.map((f) => [f.sha256, f])).values()];
    const owned = await this.blobs.claimOwned(
      workspaceId,
      unique.map((f) => f.sha256),
    );
    const missing = unique.filter((f) => !owned.has(f.sha256));
    await mapLimit(missing, UPLOAD_CONCURRENCY, async (f) => {
      signal.throwIfAborted();
      await this.blobs.storeUpload(workspaceId, { sha256: f.sha256, size: f.size }, () => createReadStream(f.absolutePath));
    });
    const bytes = missing.reduce((sum, f) => sum + f.size, 0);
    say('upload', `${files.length} files, ${missing.length} uploaded (${formatBytes(bytes)}), ${files.length - missing.length} already stored`);
    signal.throwIfAborted();

    // --- deploy
    const publish = !job.previewOnly && commit.branch !== null && commit.branch === inputs.productionBranch;
    let deployed;
    try {
      deployed = await this.deployer.deploy(
        job.principal,
        { projectId: inputs.projectId },
        // A preview lives PREVIEW_TTL (cut to the plan's longest), not the project's default_ttl.
        { files: files.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size })), publish, ...(!publish && { defaultTtl: this.previewTtl }) },
        job.beforeDeployCommit && ((m, result) => job.beforeDeployCommit!(m, result.deployment.id, publish)),
      );
    } catch (err) {
      if (err instanceof ApiError) throw new BuildFailure(`deploy refused: ${err.message}`);
      throw err;
    }
    say(
      'deploy',
      `deployed version ${deployed.deployment.version} (${deployed.deployment.id})${publish ? ', now live' : ', a preview (not the production branch)'}`,
    );
    return { commit, detected, deploymentId: deployed.deployment.id, published: publish };
  }

  /**
   * The git module's repository policy again, right before the clone (DNS may have
   * changed since the settings were saved): scheme, transport, credentials, and every
   * address of the host. Those addresses are then pinned for git (curl's resolve list),
   * so the connection goes where the check looked, not where a second lookup points.
   */
  private async checkRepository(repository: string): Promise<ResolvedRepository> {
    try {
      return await assertRepositoryAllowed(repository, this.config, this.lookup);
    } catch (err) {
      if (err instanceof RepositoryNotAllowed || err instanceof RepositoryLookupFailed) throw new BuildFailure(err.message);
      throw err;
    }
  }
}

async function emptyFolder(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
}

function describeDetection(d: Detection): string {
  const parts = [
    `framework: ${d.framework ?? 'none detected'}`,
    `package manager: ${d.packageManager ?? 'none'}`,
    `install: ${d.installCommand ?? '(none)'}`,
    `build: ${d.buildCommand ?? '(none)'}`,
    `output: ${d.outputDirectory === null ? '(found after the build)' : d.outputDirectory === '' ? '(the site folder)' : d.outputDirectory}`,
  ];
  return parts.join(', ');
}
