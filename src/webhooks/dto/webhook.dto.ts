import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

import { OptionalNotNull } from '../../common/validation';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../events/events';
import { WEBHOOK_FORMATS, type WebhookFormat } from '../webhook.entity';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhook-url';

/** What an endpoint may subscribe to: each type, or `*` for all. */
export const EVENT_CHOICES = ['*', ...SUBSCRIBABLE_EVENT_TYPES] as const;
const MAX_DESCRIPTION = 500;

const eventsMessage = `events must be a non-empty list of: ${EVENT_CHOICES.join(', ')}`;

export class CreateWebhookDto {
  @ApiProperty({ example: 'https://hooks.example.com/statichost', maxLength: MAX_WEBHOOK_URL_LENGTH })
  @IsString()
  @MaxLength(MAX_WEBHOOK_URL_LENGTH)
  url: string;

  @ApiProperty({ example: ['deployment.created', 'build.failed'], enum: EVENT_CHOICES, isArray: true })
  @ArrayMinSize(1, { message: eventsMessage })
  @ArrayMaxSize(EVENT_CHOICES.length, { message: eventsMessage })
  @ArrayUnique({ message: 'events must not repeat a type' })
  @IsIn(EVENT_CHOICES, { each: true, message: eventsMessage })
  events: string[];

  @ApiPropertyOptional({ example: 'CRM sync', maxLength: MAX_DESCRIPTION })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_DESCRIPTION)
  description?: string;

  @ApiPropertyOptional({ default: false, description: 'Send a lead’s email and a submission’s fields in the events (off: ids only, to fetch through the API)' })
  @IsOptional()
  @IsBoolean()
  includePersonalData?: boolean;

  @ApiPropertyOptional({ enum: WEBHOOK_FORMATS, description: '`slack` sends Slack’s message shape; default `slack` for hooks.slack.com URLs, else `standard`' })
  @IsOptional()
  @IsIn(WEBHOOK_FORMATS)
  format?: WebhookFormat;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ example: 'https://hooks.example.com/statichost', maxLength: MAX_WEBHOOK_URL_LENGTH })
  @OptionalNotNull()
  @IsString()
  @MaxLength(MAX_WEBHOOK_URL_LENGTH)
  url?: string;

  @ApiPropertyOptional({ enum: EVENT_CHOICES, isArray: true })
  @OptionalNotNull()
  @ArrayMinSize(1, { message: eventsMessage })
  @ArrayMaxSize(EVENT_CHOICES.length, { message: eventsMessage })
  @ArrayUnique({ message: 'events must not repeat a type' })
  @IsIn(EVENT_CHOICES, { each: true, message: eventsMessage })
  events?: string[];

  @ApiPropertyOptional({ maxLength: MAX_DESCRIPTION, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_DESCRIPTION)
  description?: string;

  @ApiPropertyOptional({ description: 'Turning it on again clears the reason it was turned off and its failure streak' })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional()
  @OptionalNotNull()
  @IsBoolean()
  includePersonalData?: boolean;

  @ApiPropertyOptional({ enum: WEBHOOK_FORMATS })
  @OptionalNotNull()
  @IsIn(WEBHOOK_FORMATS)
  format?: WebhookFormat;
}
