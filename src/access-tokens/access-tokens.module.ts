import { Module } from '@nestjs/common';
import { AccessTokensController, MeController } from './access-tokens.controller';
import { AccessTokensService } from './access-tokens.service';

@Module({
  controllers: [AccessTokensController, MeController],
  providers: [AccessTokensService],
  exports: [AccessTokensService],
})
export class AccessTokensModule {}
