import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';

import { AccessTokensModule } from './access-tokens/access-tokens.module';
import { AnalyticsModule } from './analytics/analytics.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { AuthGuard } from './auth/guard/auth.guard';
import { SecondFactorCheckModule } from './auth/two-factor/second-factor-check.module';
import { BillingModule } from './billing/billing.module';
import { BlobsModule } from './blobs/blobs.module';
import { BuildProxySecretsModule } from './builds/build-proxy-secrets';
import { BuildsModule } from './builds/builds.module';
import { CommonModule } from './common/common.module';
import { AppConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { DeployPreflightModule } from './deploy-preflight/preflight.module';
import { DeploymentsModule } from './deployments/deployments.module';
import { DomainsModule } from './domains/domains.module';
import { EventsModule } from './events/events.module';
import { FormsModule } from './forms/forms.module';
import { GatesModule } from './gates/gates.module';
import { GitModule } from './git/git.module';
import { HealthModule } from './health/health.module';
import { HooksModule } from './hooks/hooks.module';
import { InternalModule } from './internal/internal.module';
import { LeadsModule } from './leads/leads.module';
import { MailModule } from './mail/mail.module';
import { MetricsModule } from './metrics/metrics.module';
import { NotificationsModule } from './notifications/notifications.module';
import { OutboxModule } from './outbox/outbox.module';
import { PreviewsModule } from './previews/previews.module';
import { ProjectsModule } from './projects/projects.module';
import { QuotasModule } from './quotas/quotas.module';
import { SiteWebhookModule } from './site-webhook/site-webhook.module';
import { SitesModule } from './sites/sites.module';
import { SsoModule } from './sso/sso.module';
import { StorageModule } from './storage/storage.module';
import { UsersModule } from './users/users.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

@Module({})
export class AppModule {
  static forRoot(env: Record<string, string | undefined> = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(env),
        DatabaseModule,
        CommonModule,
        MetricsModule,
        StorageModule,
        HealthModule,
        ProjectsModule,
        DeploymentsModule,
        DeployPreflightModule,
        BlobsModule,
        SitesModule,
        LeadsModule,
        // The gates record email-gate visitors through the port LeadsModule binds.
        GatesModule.forRoot(LeadsModule),
        DomainsModule,
        UsersModule,
        WorkspacesModule,
        AccessTokensModule,
        // TOTP secrets are sealed through the port LeadsModule binds (SECRET_SEALER).
        AuthModule.forRoot(LeadsModule),
        // A workspace's two-factor policy for services that find the workspace in the data (billing).
        SecondFactorCheckModule,
        QuotasModule,
        BillingModule,
        InternalModule,
        OutboxModule,
        EventsModule,
        AuditModule,
        MailModule,
        SiteWebhookModule,
        AnalyticsModule,
        BuildsModule,
        GitModule,
        // The signing secrets of `Sign=NAME` proxy rules, for the site router (src/sites/proxy).
        BuildProxySecretsModule,
        PreviewsModule,
        HooksModule,
        NotificationsModule,
        FormsModule,
        WebhooksModule,
        // Single sign-on (issue 32); binds the password sign-in's SSO check for AuthService.
        SsoModule,
      ],
      providers: [{ provide: APP_GUARD, useClass: AuthGuard }],
    };
  }
}
