import { ApiProperty } from '@nestjs/swagger';

export class AnalyticsTotalsDto {
  @ApiProperty({ type: 'integer', description: 'GET answers of an HTML file, 2xx or 304, not by bots' }) pageViews: number;
  @ApiProperty({
    type: 'integer',
    description:
      'Distinct visitors per UTC day, summed over the range (a visitor coming back another day counts again: the key rotates daily); HyperLogLog, ~0.8 % standard error',
  })
  visitors: number;
  @ApiProperty({ type: 'integer', description: 'Every site answer, bots included' }) requests: number;
  @ApiProperty({ type: 'integer', description: 'Bytes sent, headers included' }) bytes: number;
  @ApiProperty({ type: 'integer' }) status4xx: number;
  @ApiProperty({ type: 'integer' }) status5xx: number;
  @ApiProperty({ type: 'integer', description: 'Answers to known bots (isbot) and clients without a user agent' }) botRequests: number;
}

export class AnalyticsPointDto {
  @ApiProperty({ example: '2026-11-23T00:00:00.000Z', description: 'Bucket start, UTC' }) time: string;
  @ApiProperty({ type: 'integer' }) pageViews: number;
  @ApiProperty({ nullable: true, type: 'integer', description: 'Distinct visitors of the day; null per hour (sketches are kept per day)' }) visitors:
    number | null;
  @ApiProperty({ type: 'integer' }) requests: number;
  @ApiProperty({ type: 'integer' }) bytes: number;
  @ApiProperty({ type: 'integer' }) status4xx: number;
  @ApiProperty({ type: 'integer' }) status5xx: number;
  @ApiProperty({ type: 'integer' }) botRequests: number;
}

export class AnalyticsPageDto {
  @ApiProperty({ example: '/docs/' }) path: string;
  @ApiProperty({ type: 'integer' }) pageViews: number;
}

export class AnalyticsReferrerDto {
  @ApiProperty({ example: 'news.ycombinator.com' }) host: string;
  @ApiProperty({ type: 'integer' }) pageViews: number;
}

export class AnalyticsNotFoundDto {
  @ApiProperty({ example: '/old-page' }) path: string;
  @ApiProperty({ type: 'integer' }) requests: number;
}

export class AnalyticsFunnelDto {
  @ApiProperty({ enum: ['none', 'password', 'email'] }) gateType: string;
  @ApiProperty({ type: 'integer', description: 'Gate pages shown (GET)' }) gateViews: number;
  @ApiProperty({ type: 'integer' }) wrongPasswords: number;
  @ApiProperty({ type: 'integer', description: 'Access granted: right passwords and captured emails' }) unlocks: number;
  @ApiProperty({ type: 'integer' }) emailsCaptured: number;
  @ApiProperty({ nullable: true, type: 'number', format: 'double', description: 'unlocks / gateViews, 0..1 (null without gate views)' }) unlockRate:
    number | null;
}

export class AnalyticsDto {
  @ApiProperty({ example: 'proj_0f3k2m9x7q1w5e8r4t6y2u0i' }) projectId: string;
  @ApiProperty({ description: 'Start of the first bucket, UTC' }) from: string;
  @ApiProperty({ description: 'End of the last bucket (exclusive), UTC' }) to: string;
  @ApiProperty({ enum: ['hour', 'day'] }) interval: string;
  @ApiProperty({ type: AnalyticsTotalsDto }) totals: AnalyticsTotalsDto;
  @ApiProperty({ type: [AnalyticsPointDto] }) series: AnalyticsPointDto[];
  @ApiProperty({ type: [AnalyticsPageDto], description: 'Up to 10, most page views first' }) topPages: AnalyticsPageDto[];
  @ApiProperty({ type: [AnalyticsReferrerDto], description: 'Up to 10 other sites, by page views they sent' }) topReferrers: AnalyticsReferrerDto[];
  @ApiProperty({ type: [AnalyticsNotFoundDto], description: 'Up to 10 paths answered 404' }) topNotFound: AnalyticsNotFoundDto[];
  @ApiProperty({ type: AnalyticsFunnelDto, description: 'The gate funnel; gate type none and zeros for a public project without gate events in the range' })
  funnel: AnalyticsFunnelDto;
}
