import { Module } from '@nestjs/common';

import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { UsersModule } from '../users/users.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { BillingController } from './billing.controller';
import { BillingRepository } from './billing.repository';
import { BillingService } from './billing.service';
import { BillingSweeper } from './billing-sweeper.service';
import { PaymentProvider } from './payment-provider';
import { createPaymentProvider } from './payment-provider.factory';

@Module({
  imports: [WorkspacesModule, UsersModule],
  controllers: [BillingController],
  providers: [{ provide: PaymentProvider, inject: [AppConfig, Clock], useFactory: createPaymentProvider }, BillingService, BillingRepository, BillingSweeper],
  exports: [BillingService, BillingSweeper, PaymentProvider],
})
export class BillingModule {}
