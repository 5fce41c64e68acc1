import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';

import { KeyedTurns } from '../../common/keyed-turns';
import { AppConfig } from '../../config/app-config';
import { ForgeCallError, forgeClient, forgeOfHost } from '../../forges/clients/forge-client';
import { DEFAULT_RETRY, type RetryPolicy } from '../../forges/clients/retry';
import { ProjectsRepository } from '../../projects/projects.repository';
import { BuildsRepository } from '../builds.repository';
import { BuildFeedback, BuildInputsSource } from '../ports';
import { BuildFeedbackRepository } from './build-feedback.repository';
import { commitStatusOf, type FeedbackContext, pullRequestComment } from './feedback-message';

/** What forge_error says for a failure that is not the forge's answer (a bug, the database): the details go to the server log only. */
const INTERNAL = 'the forge could not be told (an internal error; the server log has the details)';

/**
 * The forge hears back (issue 29): each change of a build sets its commit's status
 * and, for a pull request, edits the one comment on it. Runs off the build's path:
 * `buildChanged` queues the work and returns; the calls of one build run one after the
 * other (a late "pending" never lands after the result); a failure after the client's
 * retries is written on the record (forge_status failed, forge_error a reason without
 * the token), never thrown at the build.
 *
 * Nothing is posted (forge_status stays null) when the project has no access token,
 * when the forge is unknown (no `forge` setting, a host that is none of the public
 * forges), or before the build's commit is known.
 */
@Injectable()
export class ForgeFeedback extends BuildFeedback implements BeforeApplicationShutdown {
  private readonly logger = new Logger('ForgeFeedback');
  /** Each build's calls, in the order of its changes. */
  private readonly buildTurns = new KeyedTurns();
  /** Each pull request's comment calls. */
  private readonly pullRequestTurns = new KeyedTurns();
  private closing = false;
  /** The forge client's retries (tests may shorten the waits). */
  retry: RetryPolicy = DEFAULT_RETRY;

  constructor(
    private readonly builds: BuildsRepository,
    private readonly records: BuildFeedbackRepository,
    private readonly projects: ProjectsRepository,
    private readonly inputs: BuildInputsSource,
    private readonly config: AppConfig,
  ) {
    super();
  }

  buildChanged(buildId: string): void {
    if (this.closing) return;
    void this.buildTurns
      .run(buildId, () => this.tell(buildId))
      .catch((err: unknown) => this.logger.error(`build ${buildId}: forge feedback: ${(err as Error)?.message ?? String(err)}`, (err as Error)?.stack));
  }

  /** Lets the calls under way finish (the database is still open here): a status half posted is worse than a late one. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    await this.idle();
  }

  /** Settles once every call queued so far has ended (tests, and shutdown). */
  async idle(): Promise<void> {
    await this.buildTurns.idle();
  }

  private async tell(buildId: string): Promise<void> {
    const build = await this.builds.findById(buildId);
    if (!build?.commitSha) return;
    // The token and the repository as the builds see them (the fork's env is never opened here).
    const settings = await this.inputs.buildInputs(build.projectId, 'production', { withEnv: false });
    if (!settings?.accessToken) return;
    const forge = settings.forge ?? forgeOfHost(settings.repository);
    if (!forge) return;
    const project = await this.projects.findInWorkspace(build.projectId, build.workspaceId);
    if (!project) return;
    const ctx: FeedbackContext = {
      product: this.config.PRODUCT_NAME,
      projectSlug: project.slug,
      liveUrl: this.config.siteUrl(project.slug),
      apiBaseUrl: this.config.apiBaseUrl,
    };
    await this.records.setForgeStatus(build.id, 'pending', null);
    const failures: string[] = [];
    const attempt = async (what: () => Promise<unknown>) => {
      try {
        await what();
      } catch (err) {
        // Belt and braces: no error text we know of holds the token, but the record is shown to every reader of the project.
        failures.push(reasonOf(err).split(settings.accessToken!).join('[token]'));
        if (!(err instanceof ForgeCallError) && !(err instanceof RangeError))
          this.logger.error(`build ${build.id}: ${(err as Error)?.message}`, (err as Error)?.stack);
      }
    };
    let client: ReturnType<typeof forgeClient> | undefined;
    await attempt(async () => {
      client = forgeClient({
        forge,
        repository: settings.repository,
        token: settings.accessToken!,
        allowPrivateAddresses: this.config.GIT_ALLOW_PRIVATE_ADDRESSES,
        dnsServers: this.config.dnsServers,
        dnsTimeoutMs: this.config.DNS_TIMEOUT_MS,
        retry: this.retry,
      });
    });
    if (client) {
      const forgeApi = client;
      await attempt(() => forgeApi.setCommitStatus(build.commitSha!, commitStatusOf(build, ctx)));
      if (build.pullRequest !== null) {
        const pullRequest = build.pullRequest;
        // One pull request's builds take turns here: a second build's first change must find
        // the comment the first one is creating, or it would create a second.
        await this.pullRequestTurns.run(`${build.projectId} ${pullRequest}`, async () => {
          // An older build of the pull request ending late (replaced, canceled) must not overwrite what the newer one says.
          if ((await this.records.newestOfPullRequest(build.projectId, pullRequest)) !== build.id) return;
          await attempt(async () => {
            const known = await this.records.pullRequestComment(build.projectId, pullRequest);
            const { commentId } = await forgeApi.upsertPullRequestComment(pullRequest, pullRequestComment(build, ctx), known);
            if (commentId !== known) await this.records.setPullRequestComment(build.projectId, pullRequest, commentId);
          });
        });
      }
    }
    if (failures.length === 0) {
      await this.records.setForgeStatus(build.id, 'posted', null);
      return;
    }
    const reason = failures.join('; ').slice(0, 500);
    this.logger.warn(`build ${build.id}: the forge was not told of the build (${build.status}): ${reason}`);
    await this.records.setForgeStatus(build.id, 'failed', reason);
  }
}

/** A short reason for the record: the client's errors name the call and the HTTP status, never the token. */
function reasonOf(err: unknown): string {
  if (err instanceof ForgeCallError) return err.message;
  // forgeClient's RangeError names the repository URL, which holds no credentials (the settings refuse them).
  if (err instanceof RangeError) return err.message;
  return INTERNAL;
}
