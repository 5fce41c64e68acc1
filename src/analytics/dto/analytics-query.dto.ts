import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

/** Values are checked by parseRange (src/analytics/range.ts), whose 400s name the field. */
export class AnalyticsQueryDto {
  @ApiPropertyOptional({ description: 'ISO 8601 date or UTC time; default: 30 days before `to`', example: '2026-11-01' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  from?: string;

  @ApiPropertyOptional({ description: 'ISO 8601 date (included) or UTC time; default: now; at most 400 days after `from`', example: '2026-11-23' })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  to?: string;

  @ApiPropertyOptional({ enum: ['hour', 'day'], default: 'day' })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  interval?: string;
}
