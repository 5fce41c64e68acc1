import { Module } from '@nestjs/common';

import { GateAccess } from './gate-access.service';
import { GateAttemptsRepository } from './gate-attempts.repository';
import { GateAttemptsPurge } from './gate-attempts-purge.service';

/**
 * The gate mechanism both gate kinds share: access cookies and brute-force counters
 * (and the job that deletes spent ones).
 * The password gate's form is answered by the site router with GateAccess; the email
 * gate (EmailGate, here too) plugs into the router beside it and is provided by the
 * leads module, whose records it writes.
 */
@Module({
  providers: [GateAccess, GateAttemptsRepository, GateAttemptsPurge],
  exports: [GateAccess],
})
export class GatesModule {}
