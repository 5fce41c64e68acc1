import { Controller, Get, HttpCode, Query, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';

import { Access } from '../access/decorators';
import { domainsError } from '../shared/custom-domain/domains.errors';
import { internalError } from './internal.errors';
import { InternalGuard } from './internal.guard';
import { TlsAskService } from './tls-ask.service';

/** Infrastructure only: not part of the public API, so not in the OpenAPI document. */
@ApiExcludeController()
@Controller('internal/tls')
export class TlsAskController {
  constructor(private readonly ask: TlsAskService) {}

  /** 200 when a certificate may be issued for `domain`, 404 otherwise (Caddy reads only the status). */
  @Access({ public: true })
  @UseGuards(InternalGuard)
  @Get('allowed')
  @HttpCode(200)
  async allowed(@Query('domain') domain: unknown): Promise<{ domain: string; allowed: true }> {
    if (typeof domain !== 'string' || domain.length === 0 || domain.length > 253) {
      throw domainsError('invalid_domain', 'domain: give one host name as ?domain=');
    }
    if (!(await this.ask.allowed(domain))) {
      throw internalError(
        'certificate_not_allowed',
        `No certificate for ${domain}: it is neither the API host, a project's site host nor a verified custom domain`,
      );
    }
    return { domain, allowed: true };
  }
}
