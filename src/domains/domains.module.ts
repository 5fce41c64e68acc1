import { Module } from '@nestjs/common';

import { ProjectsModule } from '../projects/projects.module';
import { DomainDns } from './domain-dns.service';
import { DomainRechecker } from './domain-rechecker.service';
import { DomainsController } from './domains.controller';
import { DomainsRepository } from './domains.repository';
import { DomainsService } from './domains.service';

/**
 * Custom domains: verification over DNS (on request and daily). Attaching and
 * normalising live in PATCH /projects/:id (through ./custom-domain), serving in
 * the site router (SiteCache.byDomain).
 */
@Module({
  imports: [ProjectsModule],
  controllers: [DomainsController],
  providers: [DomainDns, DomainsService, DomainRechecker, DomainsRepository],
  exports: [DomainsService, DomainRechecker],
})
export class DomainsModule {}
