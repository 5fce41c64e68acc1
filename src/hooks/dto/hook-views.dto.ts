import { ApiProperty } from '@nestjs/swagger';

import { BuildView } from '../../builds/dto/build-views.dto';

const EVENTS = ['push', 'pull_request'] as const;

export class HookPingView {
  @ApiProperty({ enum: ['ping'], description: 'GitHub’s ping, sent when the webhook is created' })
  event: 'ping';
}

export class HookDuplicateView {
  @ApiProperty({ enum: [true], description: 'This delivery id was acted on before: nothing was started' })
  duplicate: true;
  @ApiProperty({ example: '72d3162e-cc78-11e3-81ab-4c9367dc0958' })
  deliveryId: string;
}

export class HookIgnoredView {
  @ApiProperty({ example: 'tag push (v1.0.0): only branches are built', description: 'Why the event starts nothing' })
  ignored: string;
}

export class HookBuildView {
  @ApiProperty({ enum: EVENTS })
  event: 'push' | 'pull_request';
  @ApiProperty({ type: BuildView, description: 'The build queued for it' })
  build: BuildView;
}

export class HookRemovedView {
  @ApiProperty({ enum: EVENTS })
  event: 'push' | 'pull_request';
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'pr-7--site',
    description: 'The preview alias removed (a deleted branch, a closed or merged pull request); null when there was none',
  })
  removed: string | null;
}
