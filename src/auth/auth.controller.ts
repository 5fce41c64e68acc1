import { Body, Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthService } from './auth.service';
import { LoginView, RegisterView, TokenPairView } from './auth.view';
import { CredentialKind, CurrentPrincipal, Public, WorkspaceOptional } from './decorators';
import { LoginDto, RefreshDto, RegisterDto } from './dto/auth.dto';
import { EmptyBodyDto } from './dto/empty-body.dto';
import type { Principal } from './principal';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('register')
  @Public()
  @ApiOperation({ summary: 'Create an account with its own workspace, and sign in' })
  @ApiCreatedResponse({ type: RegisterView })
  register(@Body() dto: RegisterDto): Promise<RegisterView> {
    return this.auth.register(dto);
  }

  @Post('login')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Sign in: an access JWT and a refresh token' })
  @ApiOkResponse({ type: LoginView })
  login(@Body() dto: LoginDto): Promise<LoginView> {
    return this.auth.login(dto);
  }

  @Post('refresh')
  @Public()
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Exchange a refresh token for a new pair',
    description: 'Refresh tokens are single use. Presenting one a second time ends the whole session.',
  })
  @ApiOkResponse({ type: TokenPairView })
  refresh(@Body() dto: RefreshDto): Promise<TokenPairView> {
    return this.auth.refresh(dto);
  }

  @Post('logout')
  @CredentialKind('user')
  @WorkspaceOptional()
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: "End the JWT's session: its refresh token and access JWTs stop working" })
  @ApiNoContentResponse()
  async logout(@CurrentPrincipal() principal: Principal, @Body() _body: EmptyBodyDto): Promise<void> {
    await this.auth.logout(principal);
  }
}
