import { ApiProperty } from '@nestjs/swagger';

import { iso } from '../common/time';
import type { FormRow } from './forms.repository';
import type { OpenedSubmission } from './forms.service';

export class FormDto {
  @ApiProperty({ example: 'frm_0f3k2m9x7q1w5e8r4t6y2u0i' })
  id: string;

  @ApiProperty({ example: 'contact', description: 'The name the HTML declares (`data-statichost-form` or Netlify’s `name`)' })
  name: string;

  @ApiProperty({ type: [String], example: ['name', 'email', 'message'], description: 'Field names, as the newest deployment declaring the form lists them' })
  fields: string[];

  @ApiProperty({ type: 'integer', description: 'Submissions kept that are not spam' })
  submissionCount: number;

  @ApiProperty({ type: 'integer', description: 'Submissions kept as spam' })
  spamCount: number;

  @ApiProperty({ type: String, nullable: true, example: '2025-11-21T10:15:30.123Z', description: 'Newest submission that is not spam' })
  lastSubmissionAt: string | null;

  @ApiProperty({ example: '2025-11-21T10:15:30.123Z', description: 'When a deployment first declared it' })
  createdAt: string;
}

export class FormListDto {
  @ApiProperty({ type: [FormDto] }) data: FormDto[];
}

export class SubmissionDto {
  @ApiProperty({ example: 'fsub_0f3k2m9x7q1w5e8r4t6y2u0i' })
  id: string;

  @ApiProperty({ example: 'frm_0f3k2m9x7q1w5e8r4t6y2u0i' })
  formId: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { name: 'Ada', message: 'Hello' },
    description: 'What the visitor sent, decrypted, in the order sent',
  })
  fields: Record<string, string>;

  @ApiProperty()
  spam: boolean;

  @ApiProperty({ type: String, nullable: true, example: 'honeypot', description: 'Why it is spam (`honeypot`, `rate_limited`, `user`…); null when not spam' })
  spamReason: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The email gate’s lead of the same visitor' })
  leadId: string | null;

  @ApiProperty({ example: 'dep_0f3k2m9x7q1w5e8r4t6y2u0i', description: 'The deployment that served the form' })
  deploymentId: string;

  @ApiProperty({ example: '2025-11-21T10:15:30.123Z' })
  createdAt: string;
}

class PageMetaDto {
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: 'integer' }) page: number;
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ type: 'integer' }) totalPages: number;
}

export class SubmissionsPageDto {
  @ApiProperty({ type: [SubmissionDto] }) data: SubmissionDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export function formView(form: FormRow): FormDto {
  return {
    id: form.id,
    name: form.name,
    fields: form.fields,
    submissionCount: form.submission_count,
    spamCount: form.spam_count,
    lastSubmissionAt: iso(form.last_submission_at),
    createdAt: iso(form.created_at),
  };
}

export function submissionView(s: OpenedSubmission): SubmissionDto {
  return {
    id: s.id,
    formId: s.formId,
    fields: s.fields,
    spam: s.spam,
    spamReason: s.spamReason,
    leadId: s.leadId,
    deploymentId: s.deploymentId,
    createdAt: iso(s.createdAt),
  };
}
