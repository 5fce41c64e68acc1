import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CredentialKind, CurrentPrincipal, WorkspaceOptional } from '../auth/decorators';
import { ApiPaginatedOk } from '../auth/openapi';
import type { Principal } from '../auth/principal';
import { BillingService } from './billing.service';
import { ActivationView, PaymentMethodView, SubscriptionView } from './billing.view';
import { ActivatePlanDto, AddPaymentMethodDto, PaymentMethodsQueryDto, WorkspaceQueryDto, WorkspaceRefDto } from './dto/billing.dto';

/**
 * Billing is the dashboard's: JWT only (an API token gets 403), and the workspace is
 * named in the body or query, so the service checks the caller's role in it.
 */
@ApiTags('billing')
@ApiBearerAuth('bearer')
@CredentialKind('user')
@WorkspaceOptional()
@Controller('billing')
export class BillingController {
  constructor(private readonly billing: BillingService) {}

  @Post('activate-plan')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Put a workspace on a paid plan now, charged to its saved payment method (owner only; repeating it changes nothing)',
  })
  @ApiOkResponse({ type: ActivationView })
  activate(@CurrentPrincipal() principal: Principal, @Body() dto: ActivatePlanDto): Promise<ActivationView> {
    return this.billing.activate(principal, dto.workspaceId, dto.tier, dto.interval);
  }

  @Post('cancel')
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'End the paid plan at the end of the current period; the workspace then returns to free (owner only)' })
  @ApiOkResponse({ type: SubscriptionView })
  cancel(@CurrentPrincipal() principal: Principal, @Body() dto: WorkspaceRefDto): Promise<SubscriptionView> {
    return this.billing.cancel(principal, dto.workspaceId);
  }

  @Get('subscription')
  @ApiOperation({ summary: "A workspace's tier, interval, status and current period end (any member)" })
  @ApiOkResponse({ type: SubscriptionView })
  subscription(@CurrentPrincipal() principal: Principal, @Query() query: WorkspaceQueryDto): Promise<SubscriptionView> {
    return this.billing.subscription(principal, query.workspaceId);
  }

  @Post('payment-methods')
  @ApiOperation({ summary: 'Save a payment method for a workspace; it becomes the one charged (owner only)' })
  @ApiCreatedResponse({ type: PaymentMethodView })
  addPaymentMethod(@CurrentPrincipal() principal: Principal, @Body() dto: AddPaymentMethodDto): Promise<PaymentMethodView> {
    return this.billing.addPaymentMethod(principal, dto.workspaceId, dto.paymentMethodToken);
  }

  @Get('payment-methods')
  @ApiOperation({ summary: "A workspace's saved payment methods, newest (the one charged) first (owner only)" })
  @ApiPaginatedOk(PaymentMethodView)
  listPaymentMethods(@CurrentPrincipal() principal: Principal, @Query() query: PaymentMethodsQueryDto) {
    return this.billing.listPaymentMethods(principal, query.workspaceId, query.page, query.limit);
  }

  @Delete('payment-methods/:paymentMethodId')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiOperation({ summary: 'Remove a saved payment method (owner only; not the last one while a paid plan renews)' })
  @ApiNoContentResponse()
  async removePaymentMethod(@CurrentPrincipal() principal: Principal, @Param('paymentMethodId') id: string): Promise<void> {
    await this.billing.removePaymentMethod(principal, id);
  }
}
