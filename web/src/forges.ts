/**
 * The git settings page's webhook setup hints (unit-tested in forges.spec.ts): which forge
 * a project's repository is on, and what to fill in on that forge's webhook form.
 */
import type { Forge } from './api';

export const FORGES = ['github', 'gitlab', 'gitea', 'forgejo'] as const satisfies readonly Forge[];

export const FORGE_NAMES: Record<Forge, string> = { github: 'GitHub', gitlab: 'GitLab', gitea: 'Gitea', forgejo: 'Forgejo' };

/**
 * The forge a repository URL is on, when its host says so (github.com, gitlab.com,
 * codeberg.org, or a host named after its forge, `gitlab.acme.dev`); null when it does
 * not (a self-hosted forge on any name: the setting, or the first verified delivery, says).
 */
export function inferForge(repository: string): Forge | null {
  let host: string;
  try {
    host = new URL(repository).hostname.toLowerCase();
  } catch {
    return null;
  }
  const labels = host.split('.');
  if (host === 'github.com' || labels.includes('github')) return 'github';
  if (host === 'gitlab.com' || labels.includes('gitlab')) return 'gitlab';
  if (host === 'codeberg.org' || labels.includes('forgejo')) return 'forgejo';
  if (host === 'gitea.com' || labels.includes('gitea')) return 'gitea';
  return null;
}

export type WebhookSetup = { forge: Forge; name: string; steps: string[] };

function setup(forge: Forge): WebhookSetup {
  const name = FORGE_NAMES[forge];
  switch (forge) {
    case 'github':
      return {
        forge,
        name,
        steps: [
          'Repository Settings → Webhooks → Add webhook.',
          'Payload URL: the webhook URL above. Content type: application/json.',
          'Secret: the webhook secret.',
          'Which events: “Let me select individual events”, then Pushes and Pull requests.',
        ],
      };
    case 'gitlab':
      return {
        forge,
        name,
        steps: [
          'Project Settings → Webhooks → Add new webhook.',
          'URL: the webhook URL above.',
          'Secret token: the webhook secret.',
          'Trigger: Push events and Merge request events.',
        ],
      };
    case 'gitea':
    case 'forgejo':
      return {
        forge,
        name,
        steps: [
          `Repository Settings → Webhooks → Add webhook → ${name}.`,
          'Target URL: the webhook URL above. HTTP method POST, content type application/json.',
          'Secret: the webhook secret.',
          'Trigger on: custom events, then Push and Pull request.',
        ],
      };
  }
}

/**
 * The setup hints to show: the chosen forge's, else the one the repository's host names,
 * else every forge's (Gitea's stand for Forgejo's, whose form is the same).
 */
export function webhookSetups(forge: Forge | null | undefined, repository: string): WebhookSetup[] {
  const known = forge ?? inferForge(repository);
  if (known) return [setup(known)];
  return (['github', 'gitlab', 'gitea'] as const).map(setup).map((s) => (s.forge === 'gitea' ? { ...s, name: 'Gitea or Forgejo' } : s));
}
