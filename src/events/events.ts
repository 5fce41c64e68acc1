/**
 * What happened in a workspace that someone outside may want to hear about (issue 30):
 * the outgoing webhooks send these, the mail notifications read them. One vocabulary,
 * emitted by the module that made the change, inside the transaction that made it.
 *
 * `data` holds ids, names and URLs only, never a secret and never a visitor's personal
 * data; what a visitor typed (a lead's email, a form's fields) goes in `personal`, which a
 * webhook endpoint receives only when it was created with `includePersonalData: true`.
 */

export const EVENT_TYPES = [
  'deployment.created',
  'deployment.promoted',
  'deployment.archived',
  'build.started',
  'build.succeeded',
  'build.failed',
  'lead.captured',
  'form.submitted',
  'domain.verified',
  'domain.failed',
  'usage.threshold',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The types an endpoint may subscribe to (`webhook.test` is sent on request only, to the one endpoint). */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((t) => t !== 'webhook.test');

interface ProjectRef {
  projectId: string;
  projectSlug: string;
}

export interface EventData {
  /** A new deployment; `live` when it became the live one at once (not a `publish: false` one). `url` is its own preview address. */
  'deployment.created': ProjectRef & { deploymentId: string; version: number; url: string; live: boolean; createdBy: string };
  /** A deployment made live by a promote or a rollback (a deploy that goes live at once is `deployment.created` with `live: true`). `url` is the live address. */
  'deployment.promoted': ProjectRef & { deploymentId: string; version: number; url: string; previousDeploymentId: string | null };
  /** A deployment that stopped being live or was archived by a user; `reason` says which. */
  'deployment.archived': ProjectRef & { deploymentId: string; version: number; reason: 'replaced' | 'archived' | 'expired' };
  'build.started': ProjectRef & BuildRef;
  'build.succeeded': ProjectRef & BuildRef & { deploymentId: string; url: string };
  'build.failed': ProjectRef & BuildRef & { error: string };
  /** A visitor's email recorded by an email gate for the first time. Personal: `{ email }`. */
  'lead.captured': ProjectRef & { leadId: string };
  /** A submission that was not judged spam. Personal: `{ fields }` (name → value). */
  'form.submitted': ProjectRef & { formId: string; formName: string; submissionId: string };
  'domain.verified': ProjectRef & { domain: string };
  /** A domain that was verified and no longer is (a pending one is checked on request only and never gives up); `reason` is the check's answer. */
  'domain.failed': ProjectRef & { domain: string; reason: string };
  /** A metered limit crossed `percent` (80 or 100) of the plan this month / in total. */
  'usage.threshold': { metric: string; used: number; limit: number; percent: number };
  'webhook.test': { webhookId: string; message: string };
}

interface BuildRef {
  buildId: string;
  branch: string | null;
  commitSha: string | null;
  trigger: string;
  pullRequest: number | null;
  /** True for a build of the project's production branch (the one that goes live). */
  production: boolean;
  /** The build's page in the dashboard. */
  dashboardUrl: string;
}

export interface PersonalData {
  'lead.captured': { email: string };
  'form.submitted': { fields: Record<string, string> };
}

/** One event as its emitter hands it over. */
export type PlatformEvent = {
  [T in EventType]: {
    type: T;
    workspaceId: string;
    timestamp: Date;
    data: EventData[T];
  } & (T extends keyof PersonalData ? { personal: PersonalData[T] } : { personal?: undefined });
}[EventType];

/** The event body on the wire: what a webhook receiver gets (`personal` merged into `data` only when allowed). */
export interface EventBody {
  type: EventType;
  timestamp: string;
  workspaceId: string;
  data: Record<string, unknown>;
}

export function eventBody(event: PlatformEvent, includePersonalData: boolean): EventBody {
  const data: Record<string, unknown> = { ...event.data };
  if (includePersonalData && event.personal) Object.assign(data, event.personal);
  return { type: event.type, timestamp: event.timestamp.toISOString(), workspaceId: event.workspaceId, data };
}
