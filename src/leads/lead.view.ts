import { ApiProperty } from '@nestjs/swagger';

import { iso } from '../common/time';
import type { OpenedLead } from './leads.service';

export class LeadDto {
  @ApiProperty({ example: 'lead_0f3k2m9x7q1w5e8r4t6y2u0i' })
  id: string;

  @ApiProperty({ example: 'ada@example.com', description: 'The visitor’s address, decrypted (stored trimmed and lowercased)' })
  email: string;

  @ApiProperty({ example: '2025-11-21T10:15:30.123Z', description: 'First capture, ISO 8601 UTC with milliseconds' })
  capturedAt: string;
}

export class WorkspaceLeadDto extends LeadDto {
  @ApiProperty({ example: 'proj_0f3k2m9x7q1w5e8r4t6y2u0i' })
  projectId: string;

  @ApiProperty()
  projectName: string;

  @ApiProperty()
  projectSlug: string;
}

class PageMetaDto {
  @ApiProperty({ type: 'integer' }) total: number;
  @ApiProperty({ type: 'integer' }) page: number;
  @ApiProperty({ type: 'integer' }) limit: number;
  @ApiProperty({ type: 'integer' }) totalPages: number;
}

export class LeadsPageDto {
  @ApiProperty({ type: [LeadDto] }) data: LeadDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export class WorkspaceLeadsPageDto {
  @ApiProperty({ type: [WorkspaceLeadDto] }) data: WorkspaceLeadDto[];
  @ApiProperty({ type: PageMetaDto }) meta: PageMetaDto;
}

export function leadView(lead: OpenedLead): LeadDto {
  return { id: lead.id, email: lead.email, capturedAt: iso(lead.capturedAt) };
}

/** Assigned, not spread: V8 builds `{ ...view, more }` on a slow path (see projectView). */
export function workspaceLeadView(lead: OpenedLead): WorkspaceLeadDto {
  return Object.assign(leadView(lead), { projectId: lead.projectId, projectName: lead.projectName, projectSlug: lead.projectSlug });
}
