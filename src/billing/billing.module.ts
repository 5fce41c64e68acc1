import { Module } from '@nestjs/common';

import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { UsersModule } from '../users/users.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { BillingController } from './billing.controller';
import { BillingRepository } from './billing.repository';
import { BillingService } from './billing.service';
import { BillingMails } from './billing-mails';
import { BillingSweeper } from './billing-sweeper.service';
import { BillingWebhookController } from './billing-webhook.controller';
import { BillingWebhookService } from './billing-webhook.service';
import { MeteringRepository } from './metering.repository';
import { MeteringService } from './metering.service';
import { OverageReporter } from './overage-reporter.service';
import { PaymentProvider } from './payment-provider';
import { createPaymentProvider } from './payment-provider.factory';

@Module({
  imports: [WorkspacesModule, UsersModule],
  controllers: [BillingController, BillingWebhookController],
  providers: [
    { provide: PaymentProvider, inject: [AppConfig, Clock], useFactory: createPaymentProvider },
    BillingService,
    BillingRepository,
    BillingSweeper,
    BillingMails,
    BillingWebhookService,
    // Metering (issue 31).
    MeteringService,
    MeteringRepository,
    OverageReporter,
  ],
  exports: [BillingService, BillingSweeper, PaymentProvider, OverageReporter],
})
export class BillingModule {}
