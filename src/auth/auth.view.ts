import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import { UserView } from '../users/user.view';
import { WorkspaceView } from '../workspaces/workspace.view';

export class TokenPairView {
  @ApiProperty({ description: 'A JWT for `Authorization: Bearer`; send X-Workspace-Id with it' })
  accessToken: string;
  @ApiPropertyOptional({
    description:
      'Opaque; exchange it at POST /auth/refresh. Single use: each refresh returns a new one. ' +
      'Absent in cookie mode (`X-Session-Mode: cookie`): it is then in the HttpOnly refresh cookie (`__Host-statichost_refresh` under https)',
  })
  refreshToken?: string;
  @ApiProperty({ type: 'integer', example: 900, description: 'Seconds until the access token expires' })
  expiresIn: number;
}

export class LoginView extends TokenPairView {
  @ApiProperty({ type: UserView })
  user: UserView;
}

export class RegisterView extends LoginView {
  @ApiProperty({ type: WorkspaceView, description: 'The personal workspace created with the account' })
  workspace: WorkspaceView;
}

export class AcceptedView {
  @ApiProperty({ example: 'If an account has this email, a link to reset its password is on its way' })
  message: string;
}

export class VerifiedEmailView {
  @ApiProperty({ type: UserView })
  user: UserView;
}
