import { randomBytes } from 'node:crypto';
import { appendFile, readFile } from 'node:fs/promises';

import type { Command } from 'commander';

import { CliError, Context, type Io } from '../context';
import { deployPath } from './deploy';

/** The parts of a GitHub event payload the action reads (push, pull_request, workflow_dispatch…). */
export interface GitHubEvent {
  repository?: { default_branch?: string };
  pull_request?: { number?: number; head?: { sha?: string } };
  number?: number;
}

export interface ModeInput {
  /** `true`, `false`, or `''`/`auto`: decided from the event. */
  preview: string;
  eventName: string;
  /** The branch (or tag) the workflow runs on: GITHUB_REF_NAME. */
  refName: string;
  /** The `production-branch` input; '' means the repository's default branch. */
  productionBranch: string;
  event: GitHubEvent;
}

export interface Mode {
  preview: boolean;
  /** Why, for the log: people wonder why a push did (not) go live. */
  reason: string;
  /** The pull request the run is for, when there is one (the comment goes there). */
  pullRequest: number | null;
}

const PULL_REQUEST_EVENTS = new Set(['pull_request', 'pull_request_target']);

/**
 * Preview or publish. Auto: a pull request is a preview; a run on the production
 * branch publishes; anything else (another branch, a tag, a production branch we
 * cannot tell) is a preview, so a run never takes a site live by accident.
 */
export function deployMode(input: ModeInput): Mode {
  const pr = PULL_REQUEST_EVENTS.has(input.eventName) ? (input.event.pull_request?.number ?? input.event.number ?? null) : null;
  const asked = input.preview.trim().toLowerCase();
  if (asked === 'true') return { preview: true, reason: 'the preview input is true', pullRequest: pr };
  if (asked === 'false') return { preview: false, reason: 'the preview input is false', pullRequest: pr };
  if (asked !== '' && asked !== 'auto') throw new CliError(`--preview: "${input.preview}" is not one of true, false, auto`, 2);
  if (PULL_REQUEST_EVENTS.has(input.eventName)) return { preview: true, reason: `a ${input.eventName} event`, pullRequest: pr };
  const production = input.productionBranch.trim() || input.event.repository?.default_branch || '';
  if (!production) return { preview: true, reason: 'the production branch is unknown (give production-branch)', pullRequest: pr };
  if (input.refName === production) return { preview: false, reason: `${input.refName} is the production branch`, pullRequest: pr };
  return { preview: true, reason: `${input.refName || 'this ref'} is not the production branch (${production})`, pullRequest: pr };
}

/** The hidden line that finds our comment again: one per project, so two sites of one repository keep one comment each. */
export function commentMarker(project: string): string {
  return `<!-- statichost-deploy project=${project} -->`;
}

/**
 * The login the token comments as: a personal token's, from GET /user; for the workflow's
 * GITHUB_TOKEN (an app's installation token, which that route refuses with 403) the
 * Actions bot, github-actions[bot]. Any other failure of GET /user is the step's warning:
 * guessing would post a second comment beside the one to edit.
 */
async function posterLogin(octokit: import('@octokit/rest').Octokit): Promise<string> {
  try {
    return (await octokit.rest.users.getAuthenticated()).data.login;
  } catch (err) {
    if ((err as { status?: number }).status === 403) return 'github-actions[bot]';
    throw err;
  }
}

export function commentBody(a: { project: string; url: string; deploymentId: string; commitSha: string | null }): string {
  return [
    commentMarker(a.project),
    `**statichost** preview of \`${a.project}\` is ready: ${a.url}`,
    '',
    `| Commit | Deployment |`,
    `| --- | --- |`,
    `| ${a.commitSha ? `\`${a.commitSha.slice(0, 7)}\`` : '-'} | \`${a.deploymentId}\` |`,
  ].join('\n');
}

/**
 * `name=value` lines for $GITHUB_OUTPUT, in the multi-line form with a random
 * delimiter: a value can then never end the block early or add an output.
 */
export function githubOutputLines(outputs: Record<string, string>): string {
  return Object.entries(outputs)
    .map(([name, value]) => {
      const delimiter = `ghadelimiter_${randomBytes(12).toString('hex')}`;
      return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
    })
    .join('');
}

/**
 * Creates the comment carrying `marker` on the pull request, or edits it in place:
 * one comment per pull request, however many commits are pushed. Only a comment the
 * token's own identity wrote is ours: anyone may post a comment holding the marker, and
 * editing theirs would either fail the step for good or put our preview in their words.
 */
async function upsertComment(a: { apiUrl: string; token: string; repository: string; pullRequest: number; marker: string; body: string }) {
  const { Octokit } = await import('@octokit/rest');
  const octokit = new Octokit({ auth: a.token, baseUrl: a.apiUrl, userAgent: 'statichost-cli' });
  const [owner, repo] = a.repository.split('/');
  const login = await posterLogin(octokit);
  const comments = await octokit.paginate(octokit.rest.issues.listComments, { owner, repo, issue_number: a.pullRequest, per_page: 100 });
  const mine = comments.find((c) => c.body?.includes(a.marker) && c.user?.login === login);
  if (mine) {
    try {
      await octokit.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body: a.body });
      return { id: mine.id, created: false };
    } catch (err) {
      // Deleted since the list, or not ours to edit after all: a comment of our own instead.
      const status = (err as { status?: number }).status;
      if (status !== 403 && status !== 404) throw err;
    }
  }
  const created = await octokit.rest.issues.createComment({ owner, repo, issue_number: a.pullRequest, body: a.body });
  return { id: created.data.id, created: true };
}

interface CiFlags {
  project: string;
  preview: string;
  productionBranch: string;
}

export function ciCommands(program: Command, io: Io): void {
  const ci = program.command('ci').description('Deploy from a CI job (what the GitHub Action runs)');
  ci.command('github')
    .description(
      'Deploy a folder built in a GitHub Actions job: a preview on pull requests, live on the production branch; writes the url and ' +
        'deployment-id outputs to $GITHUB_OUTPUT and, with $STATICHOST_GITHUB_TOKEN, keeps one comment with the preview address on the pull request',
    )
    .argument('<directory>', 'the built site')
    .requiredOption('-p, --project <slug>', 'project slug; created when missing')
    .option('--preview <when>', 'true, false or auto (a preview on pull requests and on branches other than the production branch)', 'auto')
    .option('--production-branch <branch>', 'the branch whose runs go live (default: the repository’s default branch, from the event)', '')
    .action(async (directory: string, opts: CiFlags, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const env = io.env;
      const eventPath = env.GITHUB_EVENT_PATH;
      let event: GitHubEvent = {};
      if (eventPath) {
        try {
          event = JSON.parse(await readFile(eventPath, 'utf8')) as GitHubEvent;
        } catch (err) {
          throw new CliError(`GITHUB_EVENT_PATH ${eventPath}: cannot read the event (${(err as Error).message})`);
        }
      }
      const mode = deployMode({
        preview: opts.preview,
        eventName: env.GITHUB_EVENT_NAME ?? '',
        refName: env.GITHUB_REF_NAME ?? '',
        productionBranch: opts.productionBranch,
        event,
      });
      ctx.note(`${mode.preview ? 'Deploying a preview' : 'Deploying live'}: ${mode.reason}`);
      // The folder is the job's build output, thrown away with the runner: no link file in it.
      const { deployment, output } = await deployPath(ctx, directory, { project: opts.project, preview: mode.preview, link: false });
      if (env.GITHUB_OUTPUT) await appendFile(env.GITHUB_OUTPUT, githubOutputLines({ url: deployment.url, 'deployment-id': deployment.id }));

      let comment: { id: number; created: boolean } | { error: string } | null = null;
      const githubToken = env.STATICHOST_GITHUB_TOKEN;
      if (githubToken && mode.pullRequest !== null && mode.preview) {
        const repository = env.GITHUB_REPOSITORY ?? '';
        if (!/^[^/]+\/[^/]+$/.test(repository)) throw new CliError(`GITHUB_REPOSITORY "${repository}" is not owner/name: cannot comment`);
        try {
          comment = await upsertComment({
            apiUrl: env.GITHUB_API_URL || 'https://api.github.com',
            token: githubToken,
            repository,
            pullRequest: mode.pullRequest,
            marker: commentMarker(output.project),
            body: commentBody({
              project: output.project,
              url: deployment.url,
              deploymentId: deployment.id,
              commitSha: event.pull_request?.head?.sha ?? env.GITHUB_SHA ?? null,
            }),
          });
        } catch (err) {
          // The site is deployed and the outputs are written: a comment that could not be posted is worth a warning, not a red job.
          const message = err instanceof Error ? err.message : String(err);
          comment = { error: message };
          io.stderr.write(`::warning title=statichost::Could not comment on pull request #${mode.pullRequest}: ${message}\n`);
        }
      }
      ctx.print({ ...output, preview: mode.preview, pullRequest: mode.pullRequest, comment }, () =>
        [
          `${mode.preview ? 'Deployed a preview of' : 'Deployed'} ${output.project} version ${deployment.version} (${deployment.id})`,
          deployment.url,
          ...(comment && 'id' in comment ? [`${comment.created ? 'Commented' : 'Updated the comment'} on pull request #${mode.pullRequest}`] : []),
        ].join('\n'),
      );
    });
}
