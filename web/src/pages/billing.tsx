import { useQuery } from '@tanstack/react-query';
import { ArrowUpCircle, Check, Save, Settings } from 'lucide-react';
import { type FormEvent, useId, useState } from 'react';
import { useSearchParams } from 'react-router';

import type { Schemas } from '../api';
import { ButtonIcon, ConfirmDialog, Empty, ErrorNote, Field, Loading, SelectField, TableWrap } from '../components/ui';
import { quotaShare } from '../format';
import {
  billingQueries,
  type BillingUsage,
  type SubscriptionState,
  type UsageItem,
  useActivatePlan,
  useAddPaymentMethod,
  useCancelPlan,
  useCheckout,
  usePortal,
  useSpendCap,
} from '../hooks/api/billing';
import { useSavingSwitch } from '../hooks/saving-switch';
import { formatBytes, formatMoney, formatNumber, formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';

type Limits = Schemas['PlanLimitsView'];
type Paid = Schemas['ActivatePlanDto']['tier'];
type Interval = Schemas['ActivatePlanDto']['interval'];

const count = (n: number | null) => (n === null ? 'unlimited' : String(n));
const bytes = (n: number | null) => (n === null ? 'unlimited' : formatBytes(n));

/** One row per limit of the plan table, worded as the README's table: what each tier adds. */
const LIMIT_ROWS: { key: keyof Limits; label: string; show: (l: Limits) => string }[] = [
  { key: 'projects', label: 'Projects', show: (l) => count(l.projects) },
  { key: 'deploymentsPerMonth', label: 'Deployments a month', show: (l) => count(l.deploymentsPerMonth) },
  { key: 'storageBytes', label: 'Storage', show: (l) => bytes(l.storageBytes) },
  { key: 'bandwidthBytesPerMonth', label: 'Bandwidth a month', show: (l) => bytes(l.bandwidthBytesPerMonth) },
  { key: 'buildMinutesPerMonth', label: 'Build minutes a month', show: (l) => count(l.buildMinutesPerMonth) },
  { key: 'concurrentBuilds', label: 'Builds at once', show: (l) => count(l.concurrentBuilds) },
  { key: 'maxFileBytes', label: 'Largest file', show: (l) => formatBytes(l.maxFileBytes) },
  { key: 'maxTtl', label: 'Longest time to live', show: (l) => l.maxTtl ?? 'any, including forever' },
];

/** The meters, in the order of the plan table; an item the API does not give is left out. */
const METERS: { key: keyof BillingUsage['usage']; label: string; show: (n: number) => string }[] = [
  { key: 'projects', label: 'Projects', show: String },
  { key: 'deploymentsPerMonth', label: 'Deployments this month', show: String },
  { key: 'storageBytes', label: 'Storage', show: formatBytes },
  { key: 'bandwidthBytesPerMonth', label: 'Bandwidth this month', show: formatBytes },
  { key: 'buildMinutesPerMonth', label: 'Build minutes this month', show: formatNumber },
  { key: 'concurrentBuilds', label: 'Builds running now', show: String },
];

export function Billing() {
  const workspaceId = useWorkspaceId();
  const [params] = useSearchParams();
  const returned = params.get('checkout');
  const plans = useQuery(billingQueries.plans());
  const usage = useQuery(billingQueries.usage(workspaceId));
  const subscription = useQuery({
    ...billingQueries.subscription(workspaceId),
    // Back from a paid Checkout: the plan is in force once Stripe's webhook arrives, seconds later.
    refetchInterval: (q) => (returned === 'success' && q.state.data?.status !== 'active' ? 3000 : false),
  });
  const sub = subscription.data;
  const hosted = plans.data?.hostedBilling === true;
  // The page appears once, whole: sections arriving one by one pushed the plan table down
  // (a past-due notice lands on top), a layout shift Lighthouse scored 0.37.
  if (usage.isPending || plans.isPending || subscription.isPending) {
    return (
      <>
        <h1>Billing</h1>
        <Loading what="the plan, its usage and the prices" />
      </>
    );
  }

  return (
    <>
      <h1>Billing</h1>
      {returned === 'success' ? (
        <p role="status" className="note ok">
          Payment received by Stripe: the new plan is in force as soon as Stripe confirms it, usually within seconds.
        </p>
      ) : null}
      {returned === 'canceled' ? (
        <p role="status" className="note">
          Checkout was left before paying: nothing was charged and the plan is unchanged.
        </p>
      ) : null}
      {sub ? <PastDue workspaceId={workspaceId} subscription={sub} hosted={hosted} /> : null}
      <h2>Plan and usage</h2>
      <ErrorNote error={usage.error} />
      {usage.data ? <Usage usage={usage.data} subscription={sub} /> : null}
      <ErrorNote error={subscription.error} />
      {usage.data?.spendCap ? <SpendCap workspaceId={workspaceId} cap={usage.data.spendCap} limit={usage.data.usage.bandwidthBytesPerMonth} /> : null}

      <h2>Plans</h2>
      <ErrorNote error={plans.error} />
      {plans.data ? <PlanTable workspaceId={workspaceId} plans={plans.data.data} current={usage.data?.plan} subscription={sub} hosted={hosted} /> : null}

      {hosted ? <ManageBilling workspaceId={workspaceId} /> : <PaymentMethods workspaceId={workspaceId} />}
      <Subscription workspaceId={workspaceId} subscription={sub} hosted={hosted} />
      {hosted ? <Invoices workspaceId={workspaceId} /> : null}
    </>
  );
}

/** A failed renewal: the plan is kept through the grace period while Stripe retries the card. */
function PastDue({ workspaceId, subscription, hosted }: { workspaceId: string; subscription: SubscriptionState; hosted: boolean }) {
  const portal = usePortal(workspaceId);
  if (subscription.status !== 'past_due') return null;
  return (
    <div role="alert" className="note warn">
      <p>
        <strong>Payment failed.</strong> The {subscription.tier} plan is kept until {formatTime(subscription.graceEndsAt)} while the card is tried again; after
        that the workspace returns to free (its sites keep serving, deploys over the free limits pause).
      </p>
      {hosted ? (
        <button type="button" className="primary" disabled={portal.isPending} onClick={() => portal.mutate()}>
          {portal.isPending ? 'Opening…' : 'Update the payment method'}
        </button>
      ) : null}
      <ErrorNote error={portal.error} />
    </div>
  );
}

function Usage({ usage, subscription }: { usage: BillingUsage; subscription?: SubscriptionState }) {
  const running = subscription?.status === 'active' || subscription?.status === 'past_due';
  return (
    <div className="panel">
      <p>
        This workspace is on the <strong>{usage.plan}</strong> plan
        {running && subscription.interval ? `, billed every ${subscription.interval}` : ''}
        {running && subscription.currentPeriodEnd
          ? subscription.cancelAtPeriodEnd
            ? `; it ends on ${formatTime(subscription.currentPeriodEnd)} and the workspace returns to free`
            : `; it renews on ${formatTime(subscription.currentPeriodEnd)}`
          : ''}
        .
      </p>
      {METERS.map((m) => {
        const item: UsageItem | undefined = usage.usage[m.key];
        if (!item) return null;
        return (
          <UsageBar
            key={m.key}
            label={m.label}
            used={item.used}
            limit={item.limit}
            percent={item.percent}
            show={m.show}
            note={item.resetsAt ? `Counts again from ${formatTime(item.resetsAt)}.` : undefined}
          />
        );
      })}
    </div>
  );
}

/** The owner's kill switch: sites pause (503) when the month's bandwidth reaches the plan's limit, instead of running over. */
function SpendCap({ workspaceId, cap, limit }: { workspaceId: string; cap: { pauseSitesAtLimit: boolean; sitesPaused: boolean }; limit?: UsageItem }) {
  const set = useSpendCap(workspaceId);
  const hint = useId();
  const { checked: on, toggle } = useSavingSwitch(cap.pauseSitesAtLimit, set);
  return (
    <div className="panel">
      <label>
        <input type="checkbox" role="switch" checked={on} aria-describedby={hint} disabled={set.isPending} onChange={(e) => toggle(e.target.checked)} /> Pause
        the sites at the bandwidth limit
      </label>
      <p id={hint} className="muted">
        {limit?.limit === null
          ? 'This plan has no bandwidth limit, so nothing is paused.'
          : 'On: when this month’s bandwidth reaches the plan’s limit, every site of the workspace answers “paused” until the next month, an upgrade, or until you turn this off. Off: sites keep serving and the overage is billed.'}
      </p>
      {cap.sitesPaused ? (
        <p role="status" className="note warn">
          The sites are paused: this month’s bandwidth reached the limit.
        </p>
      ) : null}
      <ErrorNote error={set.error} />
    </div>
  );
}

/** A quota as a native <meter> (announced by screen readers), with its figures in words. */
function UsageBar({
  label,
  used,
  limit,
  percent,
  show,
  note,
}: {
  label: string;
  used: number;
  limit: number | null;
  /** The API's figure (one decimal) when it gives one, else worked out here. */
  percent?: number | null;
  show: (n: number) => string;
  note?: string;
}) {
  const id = useId();
  const share = quotaShare(used, limit);
  const pct = percent ?? (share === null || !Number.isFinite(share) ? null : Math.round(share * 1000) / 10);
  return (
    <div className="usage">
      <label htmlFor={id}>{label}</label>
      {limit === null ? (
        <span className="muted">
          {show(used)} used (unlimited){note ? `. ${note}` : ''}
        </span>
      ) : (
        <>
          <meter id={id} min={0} max={Math.max(limit, 1)} value={Math.min(used, Math.max(limit, 1))} low={limit * 0.75} high={limit * 0.9} optimum={0} />
          <span className={share !== null && share >= 1 ? 'over' : 'muted'}>
            {show(used)} of {show(limit)}
            {share !== null && share >= 1 ? ' (at the limit)' : ''}
            {pct !== null ? `, ${formatNumber(pct)} %` : ''}
            {note ? `. ${note}` : ''}
          </span>
        </>
      )}
    </div>
  );
}

function PlanTable({
  workspaceId,
  plans,
  current,
  subscription,
  hosted,
}: {
  workspaceId: string;
  plans: Schemas['PlanView'][];
  current?: string;
  subscription?: SubscriptionState;
  hosted: boolean;
}) {
  const [interval, setInterval] = useState<Interval>('month');
  const checkout = useCheckout(workspaceId);
  const rows = LIMIT_ROWS.filter((row) => plans.some((p) => p.limits[row.key] !== undefined));
  // Checkout starts a subscription; one already running is changed in the portal instead.
  const paying = subscription?.status === 'active' || subscription?.status === 'past_due';
  return (
    <>
      <fieldset>
        <legend>Prices billed every</legend>
        {(['month', 'year'] as const).map((i) => (
          <label key={i}>
            <input type="radio" name="price-interval" value={i} checked={interval === i} onChange={() => setInterval(i)} /> {i}
          </label>
        ))}
      </fieldset>
      <TableWrap label="Plans">
        <table>
          <caption className="muted">What each plan allows on this installation, and what it costs</caption>
          <thead>
            <tr>
              <th scope="col">Limit</th>
              {plans.map((p) => (
                <th scope="col" key={p.tier}>
                  {p.tier}
                  {p.tier === current ? ' (yours)' : ''}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">Price</th>
              {plans.map((p) => (
                <td key={p.tier}>{p.prices ? `${formatMoney(p.prices[interval].amount, p.prices[interval].currency)} a ${interval}` : 'free'}</td>
              ))}
            </tr>
            {rows.map((row) => (
              <tr key={row.key}>
                <th scope="row">{row.label}</th>
                {plans.map((p) => (
                  <td key={p.tier}>{row.show(p.limits as Limits)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {hosted && !paying ? (
        <div className="panel row">
          {plans
            .filter((p) => p.prices && p.tier !== current)
            .map((p) => (
              <button
                key={p.tier}
                type="button"
                className="primary"
                disabled={checkout.isPending}
                onClick={() => checkout.mutate({ tier: p.tier as Paid, interval })}
              >
                <ButtonIcon icon={ArrowUpCircle} />
                Upgrade to {p.tier}, billed every {interval}
              </button>
            ))}
        </div>
      ) : null}
      {hosted && paying ? <p className="muted">To change the plan or how often it is billed, use Manage billing below.</p> : null}
      <ErrorNote error={checkout.error} />
    </>
  );
}

/** With Stripe: cards, invoices and cancelling are on Stripe's own pages, so the dashboard holds no card form. */
function ManageBilling({ workspaceId }: { workspaceId: string }) {
  const portal = usePortal(workspaceId);
  return (
    <>
      <h2>Payment method and invoices</h2>
      <div className="panel">
        <p className="muted">Cards, invoices, plan changes and cancelling are handled on Stripe’s billing portal.</p>
        <button type="button" disabled={portal.isPending} onClick={() => portal.mutate()}>
          <ButtonIcon icon={Settings} />
          {portal.isPending ? 'Opening…' : 'Manage billing'}
        </button>
        <ErrorNote error={portal.error} />
      </div>
    </>
  );
}

/** The invoices mirrored from Stripe (owners only; nothing is shown when the API has none to give). */
function Invoices({ workspaceId }: { workspaceId: string }) {
  const invoices = useQuery(billingQueries.invoices(workspaceId));
  if (!invoices.data || invoices.data.data.length === 0) return null;
  return (
    <>
      <h2>Invoices</h2>
      <TableWrap label="Invoices">
        <table>
          <caption className="muted">The latest invoices</caption>
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">Period</th>
              <th scope="col">Amount</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {invoices.data.data.map((inv) => (
              <tr key={inv.id}>
                <td>{inv.hostedInvoiceUrl ? <a href={inv.hostedInvoiceUrl}>{inv.number ?? inv.id}</a> : (inv.number ?? inv.id)}</td>
                <td>
                  {formatTime(inv.periodStart)} – {formatTime(inv.periodEnd)}
                </td>
                <td>{formatMoney(inv.amountDue, inv.currency)}</td>
                <td>{inv.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}

/**
 * Owners only, as the API says (others see its 403 here). The id comes from the payment
 * provider's card form; the local provider (the self-hosted default) takes any `pm_…` id.
 */
function PaymentMethods({ workspaceId }: { workspaceId: string }) {
  const methods = useQuery(billingQueries.paymentMethods(workspaceId));
  const [token, setToken] = useState('');
  const save = useAddPaymentMethod(workspaceId, { onSuccess: () => setToken('') });
  return (
    <>
      <h2>Payment method</h2>
      {methods.isPending ? <Loading what="payment methods" /> : null}
      <ErrorNote error={methods.error} />
      {methods.data && methods.data.meta.total === 0 ? <Empty>No payment method saved: save one before activating a paid plan.</Empty> : null}
      {methods.data && methods.data.data.length > 0 ? (
        <ul className="panel">
          {methods.data.data.map((m) => (
            <li key={m.id}>
              {m.brand ?? 'card'} {m.last4 ? `ending ${m.last4}` : ''}{' '}
              <span className="muted">
                ({m.provider}, saved {formatTime(m.createdAt)})
              </span>{' '}
              {m.isDefault ? <span className="badge active">charged</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      <form
        className="panel"
        aria-label="Save a payment method"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          save.mutate(token.trim());
        }}
      >
        <Field
          label="Payment method id"
          required
          autoComplete="off"
          placeholder="pm_card_visa"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          hint="From your payment provider's card form. The local provider (self-hosted default) charges nothing and accepts any pm_… id, e.g. pm_card_visa."
        />
        <button type="submit" className="primary" disabled={save.isPending}>
          <ButtonIcon icon={Save} />
          {save.isPending ? 'Saving…' : 'Save payment method'}
        </button>
        <ErrorNote error={save.error} />
        {save.isSuccess ? (
          <p role="status" className="note ok">
            Saved: {save.data.brand ?? 'the card'} {save.data.last4 ? `ending ${save.data.last4}` : ''} is the one charged from now on.
          </p>
        ) : null}
      </form>
    </>
  );
}

function Subscription({ workspaceId, subscription, hosted }: { workspaceId: string; subscription?: SubscriptionState; hosted: boolean }) {
  const [tier, setTier] = useState<Paid>('pro');
  const [interval, setBilledEvery] = useState<Interval>('month');
  const [confirmCancel, setConfirmCancel] = useState(false);
  const activate = useActivatePlan(workspaceId);
  // Kept apart from the mutation, which closing the dialog resets.
  const [endsAt, setEndsAt] = useState<string | null>(null);
  const cancel = useCancelPlan(workspaceId, {
    onSuccess: (answer) => {
      setEndsAt(answer.currentPeriodEnd);
      setConfirmCancel(false);
    },
  });
  const running = subscription?.status === 'active' && !subscription.cancelAtPeriodEnd;
  return (
    <>
      {hosted ? null : <h2>Change the plan</h2>}
      {hosted ? null : (
        <form
          className="panel"
          aria-label="Activate a paid plan"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            activate.mutate({ tier, interval });
          }}
        >
          <div className="row">
            <SelectField label="Plan" value={tier} onChange={(e) => setTier(e.target.value as Paid)}>
              <option value="pro">pro</option>
              <option value="team">team</option>
            </SelectField>
            <SelectField label="Billed every" value={interval} onChange={(e) => setBilledEvery(e.target.value as Interval)}>
              <option value="month">month</option>
              <option value="year">year</option>
            </SelectField>
            <div className="field">
              <button type="submit" className="primary" disabled={activate.isPending}>
                <ButtonIcon icon={Check} />
                {activate.isPending ? 'Activating…' : 'Activate'}
              </button>
            </div>
          </div>
          <p className="muted">Charged to the saved payment method at once; the new limits apply from the next request.</p>
          <ErrorNote error={activate.error} />
          {activate.isSuccess ? (
            <p role="status" className="note ok">
              The {activate.data.tier} plan is {activate.data.status}.
            </p>
          ) : null}
        </form>
      )}
      {running ? (
        <div className="panel">
          <button type="button" className="danger" onClick={() => setConfirmCancel(true)}>
            Cancel the {subscription.tier} plan
          </button>
        </div>
      ) : null}
      {endsAt && !running ? (
        <p role="status" className="note ok">
          Cancelled: the plan runs until {formatTime(endsAt)}, then the workspace is on free.
        </p>
      ) : null}
      <ConfirmDialog
        open={confirmCancel}
        title={`Cancel the ${subscription?.tier ?? ''} plan?`}
        confirmLabel="Cancel the plan"
        danger
        busy={cancel.isPending}
        error={cancel.error}
        onConfirm={() => cancel.mutate()}
        onClose={() => {
          setConfirmCancel(false);
          cancel.reset();
        }}
      >
        <p>The plan stays in force until {formatTime(subscription?.currentPeriodEnd)}; then the workspace returns to the free plan and its limits.</p>
      </ConfirmDialog>
    </>
  );
}
