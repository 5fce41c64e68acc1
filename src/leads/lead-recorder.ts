import { Injectable } from '@nestjs/common';

import type { VisitorEmailCheck, VisitorRecorder } from '../gates/visitor-recorder';
import { checkLeadEmail, MAX_EMAIL_LENGTH } from './email-address';
import { LeadsService } from './leads.service';

/** The email gate's visitors, stored as leads (bound to VISITOR_RECORDER in LeadsModule). */
@Injectable()
export class LeadRecorder implements VisitorRecorder {
  readonly maxEmailLength = MAX_EMAIL_LENGTH;

  constructor(private readonly leads: LeadsService) {}

  checkEmail(raw: string | null): VisitorEmailCheck {
    return checkLeadEmail(raw);
  }

  async record(projectId: string, email: string): Promise<{ leadId: string } | 'gone'> {
    // A visitor already known passes the gate all the same, as their first lead.
    const result = await this.leads.capture(projectId, email);
    return result === 'gone' ? 'gone' : { leadId: result.leadId };
  }
}
