import { DynamicModule, Module, Type } from '@nestjs/common';

import { AnalyticsModule } from '../analytics/analytics.module';
import { EmailGate } from './email-gate.service';
import { GateAccess } from './gate-access.service';
import { GateAttemptsRepository } from './gate-attempts.repository';
import { GateAttemptsPurge } from './gate-attempts-purge.service';
import { GateResponses } from './gate-responses';
import { Gates } from './gates.service';
import { PasswordGate } from './password-gate.service';

/**
 * Both gates (password, email) behind one interface (Gate), and what they share: access
 * cookies, brute-force counters, their pages. The site router asks Gates; the email gate
 * records visitors through VISITOR_RECORDER, which `visitors` provides.
 */
@Module({})
export class GatesModule {
  /**
   * `visitors`: the module that provides and exports VISITOR_RECORDER (LeadsModule). The
   * app composes the two here, so neither gates/ nor leads/ imports the other's module.
   * Global: one instance, whose Gates the site router injects without importing leads/ either.
   */
  static forRoot(visitors: Type<unknown>): DynamicModule {
    return {
      module: GatesModule,
      global: true,
      imports: [AnalyticsModule, visitors],
      providers: [GateAccess, GateAttemptsRepository, GateResponses, PasswordGate, EmailGate, Gates, GateAttemptsPurge],
      exports: [Gates],
    };
  }
}
