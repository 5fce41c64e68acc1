import { Body, Controller, Get, HttpCode, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';

import { CurrentPrincipal } from '../access/decorators';
import { commonError } from '../common/errors';
import { PAGE_HEADERS } from '../common/site-pages';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { NotificationSettingsView, UpdateNotificationSettingsDto } from './dto/notification-settings.dto';
import { NotificationsService } from './notifications.service';
import { confirmUnsubscribePage, invalidLinkPage, unsubscribedPage } from './unsubscribe-page';

@ApiTags('users')
@Controller('users/me/notifications')
export class NotificationSettingsController {
  constructor(private readonly notifications: NotificationsService) {}

  @Get()
  @Endpoint({ id: 'getNotificationSettings', credential: 'user', workspaceOptional: true })
  @ApiOperation({ summary: 'Your mail notifications in each of your workspaces (all off until you turn them on)' })
  @ApiOkResponse({ type: NotificationSettingsView })
  get(@CurrentPrincipal() principal: Principal): Promise<NotificationSettingsView> {
    return this.notifications.settings(principal.userId!);
  }

  @Put()
  @Endpoint({
    id: 'updateNotificationSettings',
    credential: 'user',
    workspaceOptional: true,
    errors: { 404: ['not_found'] },
    audit: 'notification_settings.updated',
  })
  @ApiOperation({
    summary: 'Set your mail notifications for one workspace',
    description:
      'Sets the three choices of the workspace named in the body (one you are an active member of, else 404) and answers all your workspaces’ settings. Mail goes to your verified address only.',
  })
  @ApiOkResponse({ type: NotificationSettingsView })
  put(@CurrentPrincipal() principal: Principal, @Body() dto: UpdateNotificationSettingsDto): Promise<NotificationSettingsView> {
    return this.notifications.update(principal.userId!, dto);
  }
}

const INVALID_LINK =
  'A tampered or cut link: nothing changed. A browser (Accept: text/html) gets a page saying so; any other client the usual error body (validation_failed).';

const TOKEN_QUERY = { name: 'token', required: true, description: 'The signed token of the link in the mail' } as const;

/**
 * The unsubscribe link of every notification mail (RFC 2369 `List-Unsubscribe`, RFC 8058
 * one-click): no sign-in, the signed token is the authority. HTML answers, for people.
 */
@ApiTags('users')
@Controller('notifications/unsubscribe')
export class UnsubscribeController {
  constructor(private readonly notifications: NotificationsService) {}

  @Get()
  @Endpoint({ id: 'showUnsubscribe', public: true })
  @ApiOperation({
    summary: 'The confirm page of an unsubscribe link (changes nothing)',
    description: 'A page with a button that POSTs to the same address: link scanners that follow the link unsubscribe nobody.',
  })
  @ApiQuery(TOKEN_QUERY)
  @ApiProduces('text/html')
  @ApiResponse({ status: 200, description: 'The confirm page', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({ status: 400, description: INVALID_LINK, content: { 'text/html': { schema: { type: 'string' } } } })
  show(@Query('token') token: unknown, @Req() req: Request, @Res() res: Response): void {
    const grant = this.notifications.readUnsubscribe(token);
    if (!grant) return invalidLink(req, res);
    page(res, 200, confirmUnsubscribePage(grant.topic));
  }

  @Post()
  @HttpCode(200)
  @Endpoint({
    id: 'unsubscribe',
    public: true,
    audit: { none: 'a mail link turns off one notification mail of its person; it grants and changes nothing in the workspace' },
  })
  @ApiOperation({
    summary: 'Unsubscribe (RFC 8058 one-click)',
    description:
      'Turns off the notification the link names, for its person and workspace. Mail clients POST `List-Unsubscribe=One-Click` (the body is not needed: the signed token is what counts); the confirm page’s button posts the same.',
  })
  @ApiQuery(TOKEN_QUERY)
  @ApiProduces('text/html')
  @ApiResponse({ status: 200, description: 'Unsubscribed (again, if it already was)', content: { 'text/html': { schema: { type: 'string' } } } })
  @ApiResponse({ status: 400, description: INVALID_LINK, content: { 'text/html': { schema: { type: 'string' } } } })
  async unsubscribe(@Query('token') token: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    const grant = await this.notifications.unsubscribe(token);
    if (!grant) return invalidLink(req, res);
    page(res, 200, unsubscribedPage(grant.topic));
  }
}

/**
 * A bad link: a page for a person who clicked it, the API's error body for anything else
 * (a mail client's one-click POST, a script), so every route's errors keep one shape.
 */
function invalidLink(req: Request, res: Response): void {
  if (req.accepts(['json', 'html']) === 'html') return page(res, 400, invalidLinkPage());
  throw commonError('validation_failed', 'token: the unsubscribe link is not valid (cut or altered); nothing changed');
}

function page(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({ ...PAGE_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
    .send(html);
}
