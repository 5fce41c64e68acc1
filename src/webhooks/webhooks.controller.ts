import { Body, Controller, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../access/decorators';
import { PageQueryDto } from '../common/pagination';
import { ApiPaginatedOk, DeleteRoute } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { CreateWebhookDto, UpdateWebhookDto } from './dto/webhook.dto';
import { WebhookDeliveryView, WebhookNewSecretView, WebhookView, WebhookWithSecretView } from './webhook.view';
import { WebhooksService } from './webhooks.service';

/** Owners and admins (scope `admin`), on the workspace of the principal (X-Workspace-Id with a JWT, the token's own). */
const ADMIN: { scopes: ['admin']; workspaceWide: true } = { scopes: ['admin'], workspaceWide: true };

@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @Endpoint({ id: 'createWebhook', ...ADMIN, errors: { 400: ['webhook_url_refused'] }, audit: 'webhook.created' })
  @ApiOperation({ summary: 'Add an endpoint that receives the workspace’s events, signed per Standard Webhooks; the secret is shown this once' })
  @ApiCreatedResponse({ type: WebhookWithSecretView })
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateWebhookDto) {
    return this.webhooks.create(principal, dto);
  }

  @Get()
  @Endpoint({ id: 'listWebhooks', ...ADMIN })
  @ApiOperation({ summary: 'The workspace’s webhook endpoints, newest first' })
  @ApiPaginatedOk(WebhookView)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto) {
    return this.webhooks.list(principal, query.page, query.limit);
  }

  @Get(':webhookId')
  @Endpoint({ id: 'getWebhook', ...ADMIN, errors: { 404: ['webhook_not_found'] } })
  @ApiOperation({ summary: 'One endpoint (never its secret)' })
  @ApiOkResponse({ type: WebhookView })
  get(@CurrentPrincipal() principal: Principal, @Param('webhookId') webhookId: string) {
    return this.webhooks.get(principal, webhookId);
  }

  @Patch(':webhookId')
  @Endpoint({ id: 'updateWebhook', ...ADMIN, errors: { 400: ['webhook_url_refused'], 404: ['webhook_not_found'] }, audit: 'webhook.updated' })
  @ApiOperation({ summary: 'Change an endpoint’s URL, events, description, format or personal-data choice, or turn it off or on' })
  @ApiOkResponse({ type: WebhookView })
  update(@CurrentPrincipal() principal: Principal, @Param('webhookId') webhookId: string, @Body() dto: UpdateWebhookDto) {
    return this.webhooks.update(principal, webhookId, dto);
  }

  @DeleteRoute(':webhookId', 'Delete an endpoint and its delivery records; queued deliveries are not sent')
  @Endpoint({ id: 'deleteWebhook', ...ADMIN, errors: { 404: ['webhook_not_found'] }, audit: 'webhook.deleted' })
  async remove(@CurrentPrincipal() principal: Principal, @Param('webhookId') webhookId: string): Promise<void> {
    await this.webhooks.remove(principal, webhookId);
  }

  @Post(':webhookId/rotate-secret')
  @HttpCode(HttpStatus.OK)
  @Endpoint({ id: 'rotateOutgoingWebhookSecret', ...ADMIN, errors: { 404: ['webhook_not_found'] }, audit: 'webhook.secret_rotated' })
  @ApiOperation({ summary: 'A new signing secret, shown once; deliveries from now on are signed with it' })
  @ApiOkResponse({ type: WebhookNewSecretView })
  rotate(@CurrentPrincipal() principal: Principal, @Param('webhookId') webhookId: string) {
    return this.webhooks.rotateSecret(principal, webhookId);
  }

  @Post(':webhookId/test')
  @HttpCode(HttpStatus.ACCEPTED)
  @Endpoint({
    id: 'testWebhook',
    ...ADMIN,
    errors: { 404: ['webhook_not_found'], 429: ['rate_limited'] },
    audit: { none: 'sends a fixed test event to the endpoint already configured; no setting or data changes' },
  })
  @ApiOperation({
    summary: 'Queue a `webhook.test` event to this endpoint alone; follow it in its deliveries',
    description: 'With redeliveries, at most 30 a minute per workspace (429 with Retry-After past it): the senders are shared by every workspace.',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryView })
  test(@CurrentPrincipal() principal: Principal, @Param('webhookId') webhookId: string) {
    return this.webhooks.test(principal, webhookId);
  }

  @Get(':webhookId/deliveries')
  @Endpoint({ id: 'listWebhookDeliveries', ...ADMIN, errors: { 404: ['webhook_not_found'] } })
  @ApiOperation({ summary: 'The endpoint’s deliveries, newest first: status, attempts, last answer, latency, next attempt, the request' })
  @ApiPaginatedOk(WebhookDeliveryView)
  deliveries(@CurrentPrincipal() principal: Principal, @Param('webhookId') webhookId: string, @Query() query: PageQueryDto) {
    return this.webhooks.deliveries(principal, webhookId, query.page, query.limit);
  }

  @Post(':webhookId/deliveries/:deliveryId/redeliver')
  @HttpCode(HttpStatus.ACCEPTED)
  @Endpoint({
    id: 'redeliverWebhookDelivery',
    ...ADMIN,
    errors: { 404: ['webhook_not_found', 'webhook_delivery_not_found'], 429: ['rate_limited'] },
    audit: { none: 'sends again a delivery already made to the same configured endpoint; no setting or data changes' },
  })
  @ApiOperation({ summary: 'Send a delivery again under the same `webhook-id`, as a fresh series of attempts' })
  @ApiAcceptedResponse({ type: WebhookDeliveryView })
  redeliver(@CurrentPrincipal() principal: Principal, @Param('webhookId') webhookId: string, @Param('deliveryId') deliveryId: string) {
    return this.webhooks.redeliver(principal, webhookId, deliveryId);
  }
}
