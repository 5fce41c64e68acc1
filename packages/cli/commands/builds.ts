import type { Command } from 'commander';

import { type Build, followBuildLogs, readBuildLog, type StatichostClient } from '../../sdk';
import { CliError, Context, type Io } from '../context';
import { formatTime } from '../format';
import { projectFromFlagOrLink } from '../resolve';
import { projectOption } from './git';
import { pageOptions } from './shared';

/** `12.3 s`, `2 min 5 s`; null (not ended) → `-`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** What was built, for people: `main @ 1a2b3c4 "Fix the header"`. */
export function describeRef(b: Pick<Build, 'ref' | 'branch' | 'commitSha' | 'commitMessage' | 'pullRequest'>): string {
  const name = b.pullRequest !== null && b.pullRequest !== undefined ? `#${b.pullRequest}` : (b.branch ?? b.ref);
  const sha = b.commitSha ? ` @ ${b.commitSha.slice(0, 7)}` : '';
  const message = b.commitMessage ? ` "${b.commitMessage.split('\n')[0].slice(0, 72)}"` : '';
  return `${name}${sha}${message}`;
}

/** The last line of a followed build: its outcome, and where it is served once ready. */
export function buildOutcome(b: Build): string {
  switch (b.status) {
    case 'ready':
      return `Build ${b.id} is ready (${formatDuration(b.durationMs)}): ${b.url ?? ''}`.trimEnd();
    case 'canceled':
      return `Build ${b.id} was canceled`;
    case 'timed_out':
      return `Build ${b.id} timed out after ${formatDuration(b.durationMs)}${b.error ? `: ${b.error}` : ''}`;
    case 'failed':
      return `Build ${b.id} failed${b.error ? `: ${b.error}` : ''}`;
    default:
      return `Build ${b.id} is ${b.status}`;
  }
}

/** A build that did not end `ready` fails the command (exit 1), so `statichost build --follow && …` stops there. */
function failUnlessReady(b: Build): void {
  if (b.status === 'ready') return;
  throw new CliError(buildOutcome(b), 1, `build_${b.status}`);
}

/** Writes the log to `out` as it arrives and returns the build once it has ended. */
async function streamLog(out: NodeJS.WritableStream, client: StatichostClient, projectId: string, buildId: string): Promise<Build> {
  let endsWithNewline = true;
  const build = await followBuildLogs(client, projectId, buildId, (text) => {
    out.write(text);
    endsWithNewline = text.endsWith('\n');
  });
  if (!endsWithNewline) out.write('\n');
  return build;
}

export function buildCommands(program: Command, io: Io): void {
  projectOption(
    program
      .command('build')
      .description('Build the project from its Git repository (statichost git connect) and deploy the output; prints the build’s id and address')
      .option('--ref <ref>', 'branch, tag or commit to build (default: the production branch, whose builds go live; others are previews)')
      .option('-f, --follow', 'stream the build’s log until it ends, then print where it is served; exit 1 when the build fails'),
  ).action(async (opts: { ref?: string; follow?: boolean; project?: string }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    const client = ctx.client();
    const project = await projectFromFlagOrLink(client, opts.project);
    const started = await client.call(
      client.api.POST('/projects/{projectId}/builds', { params: { path: { projectId: project.id } }, body: opts.ref ? { ref: opts.ref } : {} }),
    );
    const projectFlag = opts.project ? ` --project ${project.slug}` : '';
    if (!opts.follow) {
      ctx.print(started, () =>
        [
          `Started build ${started.id} of ${project.slug} (${describeRef(started)}, ${started.status})`,
          ...(started.url ? [started.url] : []),
          `Follow its log: statichost logs ${started.id}${projectFlag} --follow`,
        ].join('\n'),
      );
      return;
    }
    ctx.note(
      `Build ${started.id} of ${project.slug} (${describeRef(started)}) is ${started.status}; its log follows (Ctrl-C stops following, the build goes on)`,
    );
    // Under --json stdout is the final record alone, so the log goes to stderr.
    const build = await streamLog(ctx.json ? io.stderr : io.stdout, client, project.id, started.id);
    ctx.print(build, () => buildOutcome(build));
    failUnlessReady(build);
  });

  const builds = pageOptions(
    projectOption(
      program
        .command('builds')
        .description('List the project’s builds, newest first (`statichost builds cancel <build>` stops one)')
        .option('--branch <branch>', 'only builds of this branch')
        .option('--status <status>', 'only builds with this status: queued, running, ready, failed, canceled, timed_out'),
    ),
  ).action(async (opts: { branch?: string; status?: string; page: number; limit: number; project?: string }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    const client = ctx.client();
    const project = await projectFromFlagOrLink(client, opts.project);
    const page = await client.call(
      client.api.GET('/projects/{projectId}/builds', {
        params: {
          path: { projectId: project.id },
          query: { page: opts.page, limit: opts.limit, branch: opts.branch, status: opts.status as Build['status'] | undefined },
        },
      }),
    );
    ctx.printPage(page, ['ID', 'STATUS', 'TRIGGER', 'REF', 'DURATION', 'CREATED', 'URL'], (b) => [
      b.id,
      b.status,
      b.trigger,
      describeRef({ ...b, commitMessage: null }),
      formatDuration(b.durationMs),
      formatTime(b.createdAt),
      b.url,
    ]);
  });

  builds
    .command('cancel')
    .description('Cancel a queued or running build: its processes are stopped and what is live does not change')
    .argument('<build>', 'bld_ id (statichost builds lists them)')
    .action(async (buildId: string, _opts, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      // -p/--project belongs to `builds`, so it arrives with the parent's options.
      const project = await projectFromFlagOrLink(client, cmd.optsWithGlobals<{ project?: string }>().project);
      const build = await client.call(
        client.api.POST('/projects/{projectId}/builds/{buildId}/cancel', { params: { path: { projectId: project.id, buildId } } }),
      );
      ctx.print(build, () => `Canceling build ${build.id} (${describeRef(build)}); what is live does not change`);
    });

  projectOption(
    program
      .command('logs')
      .description('Print a build’s log: `<time> [<phase>] <text>` lines; with --follow, stream it until the build ends (exit 1 when it fails)')
      .argument('<build>', 'bld_ id (statichost builds lists them)')
      .option('-f, --follow', 'stream the log until the build ends'),
  ).action(async (buildId: string, opts: { follow?: boolean; project?: string }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    const client = ctx.client();
    const project = await projectFromFlagOrLink(client, opts.project);
    if (!opts.follow) {
      const text = await readBuildLog(client, project.id, buildId);
      io.stdout.write(text);
      return;
    }
    // The log is this command's output, --json or not.
    const build = await streamLog(io.stdout, client, project.id, buildId);
    failUnlessReady(build);
    ctx.note(buildOutcome(build));
  });
}
