import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../access/decorators';
import { ApiPaginatedOk, DeleteRoute } from '../openapi/api-decorators';
import { type DocumentedErrors, Endpoint } from '../openapi/endpoint';
import { BILLING_ROLE_REFUSAL } from '../quotas/billing.errors';
import { TIERS } from '../quotas/plans';
import { PlansService } from '../quotas/plans.service';
import { QuotaService } from '../quotas/quota.service';
import { BillingUsageView, planLimitsView, planPricesView, PlanTableView, workspaceUsageView } from '../quotas/usage.view';
import type { Principal } from '../shared/principal';
import { BillingService } from './billing.service';
import { ActivationView, HostedPageView, InvoiceView, PaymentMethodView, SubscriptionView } from './billing.view';
import { ActivatePlanDto, AddPaymentMethodDto, CheckoutDto, PaymentMethodsQueryDto, WorkspaceQueryDto, WorkspaceRefDto } from './dto/billing.dto';
import { SetSpendCapDto } from './dto/spend-cap.dto';
import { MeteringService } from './metering.service';
import { SpendCapView } from './metering.view';

/**
 * Every billing route: a dashboard JWT only (an API token gets 403), no X-Workspace-Id
 * needed, and an owner-only refusal worded for billing.
 */
const BILLING_ROUTE = { credential: 'user', workspaceOptional: true, roleRefusal: BILLING_ROLE_REFUSAL } as const;
/** The errors of naming a workspace (or a payment method's) the caller may not bill. */
const BILLING_ACCESS: DocumentedErrors = { 403: ['owner_required', 'not_a_member', 'workspace_mismatch'], 404: ['not_found'] };

/**
 * Billing is the dashboard's: JWT only (an API token gets 403). The workspace is
 * named in the body or query (`workspaceIn`), where the guard checks the caller's role;
 * a payment method's workspace is its own, so removing one checks the role in the service.
 */
@ApiTags('billing')
@ApiBearerAuth('bearer')
@Controller('billing')
export class BillingController {
  constructor(
    private readonly billing: BillingService,
    private readonly plans: PlansService,
    private readonly quotas: QuotaService,
    private readonly metering: MeteringService,
  ) {}

  /** The dashboard's plan table: operators may change any cell (PLANS_JSON/PLANS_FILE), so it is not the client's to know. */
  @Get('plans')
  @Endpoint({ ...BILLING_ROUTE, id: 'listPlans' })
  @ApiOperation({ summary: "The plan table on this installation: each tier's limits and prices (any signed-in user)" })
  @ApiOkResponse({ type: PlanTableView })
  planTable(): PlanTableView {
    return {
      data: TIERS.map((tier) => ({ tier, limits: planLimitsView(this.plans.limits(tier)), prices: planPricesView(this.plans.pricesOf(tier)) })),
      hostedBilling: this.billing.hostedBilling,
    };
  }

  @Post('activate-plan')
  @Endpoint({
    ...BILLING_ROUTE,
    id: 'activatePlan',
    audit: 'subscription.activated',
    workspaceIn: 'body',
    roles: ['owner'],
    errors: {
      ...BILLING_ACCESS,
      400: ['invalid_payment_method'],
      402: ['payment_failed', 'payment_method_required'],
      403: [...BILLING_ACCESS[403]!, 'email_not_verified'],
      409: ['subscription_exists'],
      502: ['payment_provider_unavailable'],
    },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary: 'Put a workspace on a paid plan now, charged to its saved payment method (owner only; repeating it changes nothing)',
  })
  @ApiOkResponse({ type: ActivationView })
  activate(@CurrentPrincipal() principal: Principal, @Body() dto: ActivatePlanDto): Promise<ActivationView> {
    return this.billing.activate(principal, dto.workspaceId, dto.tier, dto.interval);
  }

  @Post('cancel')
  @Endpoint({
    ...BILLING_ROUTE,
    id: 'cancelPlan',
    audit: 'subscription.canceled',
    workspaceIn: 'body',
    roles: ['owner'],
    errors: { ...BILLING_ACCESS, 409: ['no_subscription'], 502: ['payment_provider_unavailable'] },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'End the paid plan at the end of the current period; the workspace then returns to free (owner only)' })
  @ApiOkResponse({ type: SubscriptionView })
  cancel(@Body() dto: WorkspaceRefDto): Promise<SubscriptionView> {
    return this.billing.cancel(dto.workspaceId);
  }

  @Get('subscription')
  @Endpoint({ ...BILLING_ROUTE, id: 'getSubscription', workspaceIn: 'query', errors: BILLING_ACCESS })
  @ApiOperation({ summary: "A workspace's tier, interval, status and current period end (any member)" })
  @ApiOkResponse({ type: SubscriptionView })
  subscription(@Query() query: WorkspaceQueryDto): Promise<SubscriptionView> {
    return this.billing.subscription(query.workspaceId);
  }

  @Get('usage')
  @Endpoint({ ...BILLING_ROUTE, id: 'getUsage', workspaceIn: 'query', errors: BILLING_ACCESS })
  @ApiOperation({
    summary: "A workspace's plan, its limits and what it uses of each (projects, deployments, storage, builds, bandwidth) and its spend cap (any member)",
  })
  @ApiOkResponse({ type: BillingUsageView })
  async usage(@Query() query: WorkspaceQueryDto): Promise<BillingUsageView> {
    const [plan, usage] = await Promise.all([this.quotas.planOf(query.workspaceId), this.quotas.usage(query.workspaceId)]);
    const spendCap = await this.metering.spendCapState(query.workspaceId, usage.bandwidthBytesPerMonth, plan.limits);
    return { plan: plan.tier, limits: planLimitsView(plan.limits), usage: workspaceUsageView(usage, plan.limits), spendCap };
  }

  @Post('payment-methods')
  @Endpoint({
    ...BILLING_ROUTE,
    id: 'addPaymentMethod',
    audit: 'payment_method.added',
    workspaceIn: 'body',
    roles: ['owner'],
    errors: {
      ...BILLING_ACCESS,
      400: ['invalid_payment_method'],
      402: ['payment_failed'],
      409: ['payment_method_exists'],
      502: ['payment_provider_unavailable'],
    },
  })
  @ApiOperation({ summary: 'Save a payment method for a workspace; it becomes the one charged (owner only)' })
  @ApiCreatedResponse({ type: PaymentMethodView })
  addPaymentMethod(@CurrentPrincipal() principal: Principal, @Body() dto: AddPaymentMethodDto): Promise<PaymentMethodView> {
    return this.billing.addPaymentMethod(principal, dto.workspaceId, dto.paymentMethodToken);
  }

  @Get('payment-methods')
  @Endpoint({ ...BILLING_ROUTE, id: 'listPaymentMethods', workspaceIn: 'query', roles: ['owner'], errors: BILLING_ACCESS })
  @ApiOperation({ summary: "A workspace's saved payment methods, newest (the one charged) first (owner only)" })
  @ApiPaginatedOk(PaymentMethodView)
  listPaymentMethods(@Query() query: PaymentMethodsQueryDto) {
    return this.billing.listPaymentMethods(query.workspaceId, query.page, query.limit);
  }

  @DeleteRoute('payment-methods/:paymentMethodId', 'Remove a saved payment method (owner only; not the last one while a paid plan renews)')
  @Endpoint({
    ...BILLING_ROUTE,
    id: 'removePaymentMethod',
    audit: 'payment_method.removed',
    errors: { ...BILLING_ACCESS, 409: ['payment_method_required'], 502: ['payment_provider_unavailable'] },
  })
  async removePaymentMethod(@CurrentPrincipal() principal: Principal, @Param('paymentMethodId') id: string): Promise<void> {
    await this.billing.removePaymentMethod(principal, id);
  }

  // --- Metering (issue 31): the spend cap. ---

  @Put('spend-cap')
  @Endpoint({ ...BILLING_ROUTE, id: 'setSpendCap', workspaceIn: 'body', roles: ['owner'], errors: BILLING_ACCESS, audit: 'spend_cap.updated' })
  @ApiOperation({
    summary:
      "Turn the spend cap on or off (owner only): on, the workspace's sites answer 503 once this month's bandwidth reaches the plan's limit, until the next month, an upgrade or the cap is turned off; off, they keep serving and overage is billed",
  })
  @ApiOkResponse({ type: SpendCapView })
  setSpendCap(@Body() dto: SetSpendCapDto): Promise<SpendCapView> {
    return this.metering.setSpendCap(dto.workspaceId, dto.pauseSitesAtLimit);
  }

  @Get('spend-cap')
  @Endpoint({ ...BILLING_ROUTE, id: 'getSpendCap', workspaceIn: 'query', errors: BILLING_ACCESS })
  @ApiOperation({ summary: "A workspace's spend cap and whether its sites are paused by it now (any member)" })
  @ApiOkResponse({ type: SpendCapView })
  spendCap(@Query() query: WorkspaceQueryDto): Promise<SpendCapView> {
    return this.metering.spendCap(query.workspaceId);
  }

  @Post('checkout')
  @Endpoint({
    ...BILLING_ROUTE,
    id: 'startCheckout',
    audit: { none: 'answers a provider page’s address; the plan changes when the provider’s webhook reports it paid (subscription.updated)' },
    workspaceIn: 'body',
    roles: ['owner'],
    errors: {
      ...BILLING_ACCESS,
      403: [...BILLING_ACCESS[403]!, 'email_not_verified'],
      409: ['hosted_billing_unavailable', 'already_on_plan', 'subscription_exists'],
      502: ['payment_provider_unavailable'],
    },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({
    summary:
      'The URL of a Stripe Checkout page that starts a paid plan for the workspace; the plan is in force once Stripe reports it paid (owner only; 409 with the local provider)',
  })
  @ApiOkResponse({ type: HostedPageView })
  checkout(@CurrentPrincipal() principal: Principal, @Body() dto: CheckoutDto): Promise<HostedPageView> {
    return this.billing.checkout(principal, dto.workspaceId, dto.tier, dto.interval);
  }

  @Post('portal')
  @Endpoint({
    ...BILLING_ROUTE,
    id: 'openBillingPortal',
    audit: { none: 'answers the provider’s portal address; what is changed there arrives through the webhook (subscription.updated)' },
    workspaceIn: 'body',
    roles: ['owner'],
    errors: { ...BILLING_ACCESS, 409: ['hosted_billing_unavailable'], 502: ['payment_provider_unavailable'] },
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'The URL of the Stripe customer portal for the workspace: cards, invoices, cancelling (owner only; 409 with the local provider)' })
  @ApiOkResponse({ type: HostedPageView })
  portal(@CurrentPrincipal() principal: Principal, @Body() dto: WorkspaceRefDto): Promise<HostedPageView> {
    return this.billing.portal(principal, dto.workspaceId);
  }

  // Issue 31: the provider's invoices, mirrored from its webhook events.

  @Get('invoices')
  @Endpoint({ ...BILLING_ROUTE, id: 'listInvoices', workspaceIn: 'query', roles: ['owner'], errors: BILLING_ACCESS })
  @ApiOperation({ summary: "A workspace's invoices from the payment provider, newest first: number, amounts, status, period, hosted page (owner only)" })
  @ApiPaginatedOk(InvoiceView)
  listInvoices(@Query() query: PaymentMethodsQueryDto) {
    return this.billing.listInvoices(query.workspaceId, query.page, query.limit);
  }
}
