import { Controller, Get, HttpCode, Query, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/decorators';
import { ApiError, badRequest } from '../common/errors';
import { InternalGuard } from './internal.guard';
import { TlsAskService } from './tls-ask.service';

/** Infrastructure only: not part of the public API, so not in the OpenAPI document. */
@ApiExcludeController()
@Controller('internal/tls')
export class TlsAskController {
  constructor(private readonly ask: TlsAskService) {}

  /** 200 when a certificate may be issued for `domain`, 404 otherwise (Caddy reads only the status). */
  @Public()
  @UseGuards(InternalGuard)
  @Get('allowed')
  @HttpCode(200)
  async allowed(@Query('domain') domain: unknown): Promise<{ domain: string; allowed: true }> {
    if (typeof domain !== 'string' || domain.length === 0 || domain.length > 253) {
      throw badRequest('domain: give one host name as ?domain=', 'invalid_domain');
    }
    if (!(await this.ask.allowed(domain))) {
      throw new ApiError(404, 'certificate_not_allowed', `No certificate for ${domain}: it is neither the API host, a project's site host nor a verified custom domain`);
    }
    return { domain, allowed: true };
  }
}
