import { Module } from '@nestjs/common';

import { DeploymentsModule } from '../deployments/deployments.module';
import { GateAccess } from './gate-access.service';
import { GateAttemptsRepository } from './gate-attempts.repository';

/**
 * The gate mechanism both gate kinds share: access cookies and brute-force counters.
 * The password gate's form is answered by the site router with GateAccess; the email
 * gate (EmailGate, here too) plugs into the router beside it and is provided by the
 * leads module, whose records it writes.
 */
@Module({
  imports: [DeploymentsModule],
  providers: [GateAccess, GateAttemptsRepository],
  exports: [GateAccess],
})
export class GatesModule {}
