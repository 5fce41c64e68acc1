/** Every migration, oldest first. `npm run migration:generate` writes new ones beside this file: add them here. */
import { Identity1763770000000 } from './1763770000000-Identity';
import { ProjectsDeployments1763770001000 } from './1763770001000-ProjectsDeployments';
import { GateRateLimits1763770002000 } from './1763770002000-GateRateLimits';
import { Leads1763770003000 } from './1763770003000-Leads';
import { Billing1763770004000 } from './1763770004000-Billing';
import { CustomDomains1763770005000 } from './1763770005000-CustomDomains';
import { WorkspaceBlobs1763770006000 } from './1763770006000-WorkspaceBlobs';
import { LeadDomains1763770007000 } from './1763770007000-LeadDomains';
import { Outbox1763770010000 } from './1763770010000-Outbox';
import { BlobVariants1763770012000 } from './1763770012000-BlobVariants';
import { AuthEpoch1763770015000 } from './1763770015000-AuthEpoch';
import { AccountRecovery1763770020000 } from './1763770020000-AccountRecovery';
import { Analytics1763770030000 } from './1763770030000-Analytics';
import { ProjectListIndex1763770040000 } from './1763770040000-ProjectListIndex';
import { IdempotencyClaimant1763770050000 } from './1763770050000-IdempotencyClaimant';
import { GitSettings1763770060000 } from './1763770060000-GitSettings';
import { Builds1763770070000 } from './1763770070000-Builds';
import { ForgePreviews1764100000000 } from './1764100000000-ForgePreviews';
import { DeploymentRuleWarnings1764200000000 } from './1764200000000-DeploymentRuleWarnings';
import { Forms1764300000000 } from './1764300000000-Forms';
import { Webhooks1764300001000 } from './1764300001000-Webhooks';
import { Notifications1764300002000 } from './1764300002000-Notifications';
import { UsageThresholds1764300003000 } from './1764300003000-UsageThresholds';
import { WebhookDeliverySubject1764300004000 } from './1764300004000-WebhookDeliverySubject';
import { FormSubmissionLead1764300040000 } from './1764300040000-FormSubmissionLead';
import { BillingLifecycle1764400000000 } from './1764400000000-BillingLifecycle';
import { BandwidthOverage1764400002000 } from './1764400002000-BandwidthOverage';
import { AuditLog1764500000000 } from './1764500000000-AuditLog';
import { TwoFactor1764500001000 } from './1764500001000-TwoFactor';
import { Passkeys1764500002000 } from './1764500002000-Passkeys';
import { Sso1764500003000 } from './1764500003000-Sso';
import { AuditLogReadSide1764500004000 } from './1764500004000-AuditLogReadSide';
import { ProjectNameIndex1764600000000 } from './1764600000000-ProjectNameIndex';
import { FormCounterShards1764700000000 } from './1764700000000-FormCounterShards';
import { RateLimitsUnlogged1764700001000 } from './1764700001000-RateLimitsUnlogged';
import { SiteWarmList1764800000000 } from './1764800000000-SiteWarmList';
import { AnalyticsMergeRegisters1764900000000 } from './1764900000000-AnalyticsMergeRegisters';
import { SsoLoginBrowser1765000000000 } from './1765000000000-SsoLoginBrowser';
import { SubscriptionProviderRead1765100000000 } from './1765100000000-SubscriptionProviderRead';
import { BuildsForkDeployment1765100001000 } from './1765100001000-BuildsForkDeployment';
import { DigestItemsProject1765200000000 } from './1765200000000-DigestItemsProject';
import { PullRequestComments1765300000000 } from './1765300000000-PullRequestComments';
import { OutboxPurgeIndexes1765300001000 } from './1765300001000-OutboxPurgeIndexes';
import { CustomDomainVerifiedUnique1765300002000 } from './1765300002000-CustomDomainVerifiedUnique';
import { OverageAtCount1765300003000 } from './1765300003000-OverageAtCount';
import { MemberEmailsFollowUsers1765300004000 } from './1765300004000-MemberEmailsFollowUsers';
import { SessionAuthenticatedAt1765400000000 } from './1765400000000-SessionAuthenticatedAt';
import { OpenCheckout1765400001000 } from './1765400001000-OpenCheckout';
import { OutboxShareKey1765500000000 } from './1765500000000-OutboxShareKey';

export const MIGRATIONS: Function[] = [
  Identity1763770000000,
  ProjectsDeployments1763770001000,
  GateRateLimits1763770002000,
  Billing1763770004000,
  CustomDomains1763770005000,
  WorkspaceBlobs1763770006000,
  Leads1763770003000,
  LeadDomains1763770007000,
  Outbox1763770010000,
  BlobVariants1763770012000,
  AuthEpoch1763770015000,
  AccountRecovery1763770020000,
  Analytics1763770030000,
  ProjectListIndex1763770040000,
  IdempotencyClaimant1763770050000,
  GitSettings1763770060000,
  Builds1763770070000,
  ForgePreviews1764100000000,
  DeploymentRuleWarnings1764200000000,
  Forms1764300000000,
  Webhooks1764300001000,
  Notifications1764300002000,
  UsageThresholds1764300003000,
  WebhookDeliverySubject1764300004000,
  FormSubmissionLead1764300040000,
  BillingLifecycle1764400000000,
  BandwidthOverage1764400002000,
  AuditLog1764500000000,
  TwoFactor1764500001000,
  Passkeys1764500002000,
  Sso1764500003000,
  AuditLogReadSide1764500004000,
  ProjectNameIndex1764600000000,
  FormCounterShards1764700000000,
  RateLimitsUnlogged1764700001000,
  SiteWarmList1764800000000,
  AnalyticsMergeRegisters1764900000000,
  SsoLoginBrowser1765000000000,
  SubscriptionProviderRead1765100000000,
  BuildsForkDeployment1765100001000,
  DigestItemsProject1765200000000,
  PullRequestComments1765300000000,
  OutboxPurgeIndexes1765300001000,
  CustomDomainVerifiedUnique1765300002000,
  OverageAtCount1765300003000,
  MemberEmailsFollowUsers1765300004000,
  SessionAuthenticatedAt1765400000000,
  OpenCheckout1765400001000,
  OutboxShareKey1765500000000,
];
