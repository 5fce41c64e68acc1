import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';

import { CurrentPrincipal } from '../access/decorators';
import { EmptyBodyDto } from '../common/empty-body.dto';
import { ApiProjectRoutes } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { verifyDomainView } from './domain.view';
import { DomainsService } from './domains.service';
import { VerifyDomainView } from './dto/verify-domain.view.dto';

@ApiProjectRoutes('projects')
@Controller('projects')
export class DomainsController {
  constructor(private readonly domains: DomainsService) {}

  @Post(':projectId/verify-domain')
  @Endpoint({
    id: 'verifyDomain',
    scopes: ['admin'],
    audit: 'domain.checked',
    errors: { 409: ['no_custom_domain', 'domain_changed', 'domain_taken'], 503: ['dns_timeout', 'dns_unavailable'] },
  })
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check the custom domain’s DNS records now',
    description:
      'Looks up the TXT record `_statichost-challenge.<domain>` (it decides) and the CNAME. ' +
      'Token found: the domain becomes `verified` and is served. Otherwise 200 with `verified: false` and, per record, what was expected and found.',
  })
  @ApiOkResponse({
    type: VerifyDomainView,
    description: 'Whether this check found the token, the domain’s state afterwards, and per record what was expected and found',
  })
  @ApiResponse({
    status: 409,
    description:
      '`no_custom_domain`: nothing to verify; `domain_changed`: the domain changed during the check; `domain_taken`: another project verified the name first',
  })
  @ApiResponse({ status: 503, description: '`dns_timeout` / `dns_unavailable`: DNS did not answer within DNS_TIMEOUT_MS; nothing changed (Retry-After)' })
  async verify(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Body() _body: EmptyBodyDto) {
    return verifyDomainView(await this.domains.verify(principal, projectId));
  }
}
