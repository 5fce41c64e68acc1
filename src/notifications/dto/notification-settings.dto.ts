import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsString, MaxLength } from 'class-validator';

import { IdProperty } from '../../common/dto-fields';
import { type Role, ROLES } from '../../shared/principal';
import { DIGEST_MODES, type DigestMode } from '../notification-preference.entity';

const DIGEST_DOC = {
  enum: DIGEST_MODES,
  example: 'daily',
  description:
    'New leads and form submissions by mail: `off`, `immediate` (batched: one mail a few minutes after the first new entry, with everything that came meanwhile) or `daily` (one mail a day at the operator’s NOTIFICATIONS_DAILY_DIGEST_HOUR, UTC). The mail lists the leads’ emails and the submissions’ fields: every role of a workspace may read its leads.',
};

/** One workspace's notifications, all three choices at once (what the settings page shows as one row). */
export class UpdateNotificationSettingsDto {
  @IdProperty('ws')
  @IsString()
  @MaxLength(100)
  workspaceId: string;

  @ApiProperty({ example: true, description: 'Mail me when a build of a project’s production branch fails' })
  @IsBoolean()
  buildFailed: boolean;

  @ApiProperty({ example: true, description: 'Mail me when a custom domain stops verifying' })
  @IsBoolean()
  domainFailed: boolean;

  @ApiProperty(DIGEST_DOC)
  @IsIn(DIGEST_MODES)
  digest: DigestMode;
}

export class WorkspaceNotificationSettingsView {
  @IdProperty('ws')
  workspaceId: string;
  @ApiProperty({ example: 'Acme' })
  workspaceName: string;
  @ApiProperty({ enum: ROLES, example: 'owner', description: 'Your role there' })
  role: Role;
  @ApiProperty({ example: false, description: 'Mail when a build of a project’s production branch fails' })
  buildFailed: boolean;
  @ApiProperty({ example: false, description: 'Mail when a custom domain stops verifying' })
  domainFailed: boolean;
  @ApiProperty(DIGEST_DOC)
  digest: DigestMode;
}

export class NotificationSettingsView {
  @ApiProperty({
    type: [WorkspaceNotificationSettingsView],
    description: 'Every workspace you are an active member of, by name; all off until you turn something on. Mail goes to your verified address only.',
  })
  workspaces: WorkspaceNotificationSettingsView[];
}
