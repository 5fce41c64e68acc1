import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BuildPipeline } from '../../src/builds/pipeline/build-pipeline';
import { BuildsPipelineModule } from '../../src/builds/pipeline/builds-pipeline.module';
import type { BuildPhase } from '../../src/builds/pipeline/types';
import { ContainerRunner } from '../../src/builds/runner/podman-runner';
import { DeployService } from '../../src/deployments/deploy.service';
import { requestSlug } from '../../src/projects/request-slug';
import { buildTestImage, podmanPath } from '../helpers/build-image';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { type MediumContext, newMediumService, tokenPrincipal } from '../helpers/medium';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * The pipeline's commands in the podman sandbox: what the pipeline gives a command (HOME
 * and caches under /cache, PATH, the checkout at /workspace, the project's env) works in a
 * container as the non-root user, and the output the container wrote is deployed. Skipped,
 * saying so, where podman is not installed.
 */
if (!podmanPath) console.warn('test/builds/sandbox-pipeline.e2e-spec.ts: skipped, podman not installed (apt-get install podman runc; see .ci/run)');
const describePodman = podmanPath ? describe : describe.skip;

describePodman(`BuildPipeline with the podman runner${podmanPath ? '' : ' (skipped: podman not installed)'}`, () => {
  let sut: BuildPipeline;
  let ctx: MediumContext;
  let git: GitServer;
  let workDir: string;
  let runner: ContainerRunner;

  beforeAll(async () => {
    const image = buildTestImage('podman');
    runner = new ContainerRunner('podman', { binaryPath: podmanPath!, image, cpus: 1, memoryMb: 512, pidsLimit: 256, pull: 'never' });
    workDir = await mkdtemp(join(tmpdir(), 'sandbox-pipeline-work-'));
    ({ sut, ctx } = await newMediumService(BuildPipeline, {
      imports: [BuildsPipelineModule],
      env: { GIT_ALLOW_PRIVATE_ADDRESSES: 'true', BUILD_WORK_DIR: workDir, BUILD_IMAGE: image },
    }));
    git = await startGitServer();
  }, 120_000);
  afterAll(async () => {
    await git?.close();
    await ctx?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it('builds a `node build.js` site with npm inside the container (env masked in the log) and deploys its output live', async () => {
    const { workspaceId } = await ctx.newWorkspace('pro');
    const { project } = await ctx
      .get(DeployService)
      .deploy(
        tokenPrincipal(workspaceId),
        { slug: requestSlug(`sandboxed-${Date.now().toString(36)}`, 'project_slug') },
        { files: [{ path: 'index.html', content: 'before' }] },
      );
    git.createRepo('sandboxed-site', {
      'package.json': JSON.stringify({ name: 'sandboxed-site', version: '1.0.0', private: true, scripts: { build: 'node build.js' } }),
      'package-lock.json': JSON.stringify({
        name: 'sandboxed-site',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: { '': { name: 'sandboxed-site', version: '1.0.0' } },
      }),
      'build.js': [
        `const fs = require('fs');`,
        `fs.mkdirSync('dist', { recursive: true });`,
        `fs.writeFileSync('dist/index.html', ['<h1>' + process.env.SITE_TITLE + '</h1>', process.cwd(), process.getuid() === 0 ? 'root' : 'not root'].join(' '));`,
        `console.log('built for', process.env.SITE_TITLE, 'home', process.env.HOME);`,
      ].join('\n'),
    });
    const lines: { phase: BuildPhase; text: string }[] = [];
    const result = await sut.run({
      buildId: 'bld_sandboxed1',
      principal: tokenPrincipal(workspaceId, project.id),
      ref: 'main',
      inputs: {
        projectId: project.id,
        repository: git.url('sandboxed-site'),
        productionBranch: 'main',
        rootDirectory: '',
        installCommand: null,
        buildCommand: null,
        outputDirectory: null,
        nodeVersion: null,
        accessToken: null,
        env: { SITE_TITLE: 'Sandboxed' },
      },
      runner,
      log: { write: (phase, text) => lines.push({ phase, text }) },
      signal: new AbortController().signal,
    });
    const log = lines.map((l) => `[${l.phase}] ${l.text}`).join('\n');
    expect(result.published).toBe(true);
    const files = (await ctx.dataSource.query('SELECT path, sha256 FROM deployment_files WHERE deployment_id = $1', [result.deploymentId])) as {
      path: string;
      sha256: string;
    }[];
    expect(files).toEqual([{ path: 'index.html', sha256: sha('<h1>Sandboxed</h1> /workspace not root') }]);
    expect(log).toContain('[build] built for *** home /cache/home');
    expect(await readdir(workDir)).toEqual([]);
  });
});
