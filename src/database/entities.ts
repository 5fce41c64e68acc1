/**
 * Every TypeORM entity, listed by hand so the app, the migration CLI and the tests
 * load the same set without globbing compiled files.
 */
import { AccessToken } from '../access-tokens/access-token.entity';
import { AnalyticsDaily, AnalyticsHourly, AnalyticsSecret, AnalyticsVisitors } from '../analytics/analytics.entities';
import { AuditEntry, AuditHead } from '../audit/audit.entities';
import { Passkey, PasskeyChallenge } from '../auth/passkeys/passkey.entities';
import { AccountToken } from '../auth/recovery/account-token.entity';
import { RefreshToken } from '../auth/sessions/refresh-token.entity';
import { AuthSession } from '../auth/sessions/session.entity';
import { LoginChallenge, RecoveryCode, TotpCredential } from '../auth/two-factor/two-factor.entities';
import {
  BillingCustomer,
  BillingEvent,
  BillingInvoice,
  PaymentMethod,
  Subscription,
  WorkspaceMonthlyUsage,
  WorkspaceSpendCap,
  WorkspaceStorage,
  WorkspaceStorageBlob,
  WorkspaceStorageChange,
} from '../billing/billing.entities';
import { UsageThreshold } from '../billing/usage-threshold.entity';
import { Blob } from '../blobs/blob.entity';
import { WorkspaceBlob } from '../blobs/workspace-blob.entity';
import { Build } from '../builds/build.entity';
import { PullRequestComment } from '../builds/feedback/pull-request-comment.entity';
import { BuildLogChunk } from '../builds/logs/build-log-chunk.entity';
import { IdempotencyKey } from '../common/idempotency/idempotency-key.entity';
import { Deployment } from '../deployments/deployment.entity';
import { DeploymentFile } from '../deployments/deployment-file.entity';
import { Form } from '../forms/form.entity';
import { FormCounterShard } from '../forms/form-counter.entity';
import { FormSubmission } from '../forms/form-submission.entity';
import { HtmlFormScan } from '../forms/html-form-scan.entity';
import { ProjectEnvVar, ProjectGit } from '../git/git.entities';
import { GitDelivery } from '../hooks/git-delivery.entity';
import { Lead } from '../leads/lead.entity';
import { LeadCounter } from '../leads/lead-counter.entity';
import { LeadDomain } from '../leads/lead-domain.entity';
import { NotificationDigestItem } from '../notifications/notification-digest-item.entity';
import { NotificationPreference } from '../notifications/notification-preference.entity';
import { OutboxMessage } from '../outbox/outbox-message.entity';
import { PreviewAlias } from '../previews/preview-alias.entity';
import { Project } from '../projects/project.entity';
import { SsoConnection, SsoDomain, SsoLogin } from '../sso/sso.entities';
import { User } from '../users/user.entity';
import { Webhook } from '../webhooks/webhook.entity';
import { WebhookDelivery } from '../webhooks/webhook-delivery.entity';
import { Workspace } from '../workspaces/workspace.entity';
import { WorkspaceMember } from '../workspaces/workspace-member.entity';

export const ENTITIES: Function[] = [
  Project,
  Deployment,
  DeploymentFile,
  Blob,
  IdempotencyKey,
  User,
  Workspace,
  WorkspaceMember,
  AccessToken,
  AuditEntry,
  AuditHead,
  RefreshToken,
  AuthSession,
  WorkspaceBlob,
  BillingCustomer,
  PaymentMethod,
  Subscription,
  WorkspaceMonthlyUsage,
  WorkspaceStorageBlob,
  WorkspaceStorage,
  WorkspaceStorageChange,
  Lead,
  LeadCounter,
  LeadDomain,
  OutboxMessage,
  AccountToken,
  AnalyticsHourly,
  AnalyticsDaily,
  AnalyticsVisitors,
  AnalyticsSecret,
  Build,
  PullRequestComment,
  BuildLogChunk,
  ProjectGit,
  GitDelivery,
  PreviewAlias,
  ProjectEnvVar,
  Form,
  FormCounterShard,
  FormSubmission,
  HtmlFormScan,
  UsageThreshold,
  BillingEvent,
  BillingInvoice,
  WorkspaceSpendCap,
  NotificationPreference,
  NotificationDigestItem,
  Webhook,
  WebhookDelivery,
  Passkey,
  PasskeyChallenge,
  SsoConnection,
  SsoDomain,
  SsoLogin,
  TotpCredential,
  RecoveryCode,
  LoginChallenge,
];
