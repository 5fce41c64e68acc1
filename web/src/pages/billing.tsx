import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';

import type { Schemas } from '../api';
import { ConfirmDialog, Empty, ErrorNote, Field, Loading, SelectField, TableWrap } from '../components/ui';
import { quotaShare } from '../format';
import { billingQueries, useActivatePlan, useAddPaymentMethod, useCancelPlan } from '../hooks/api/billing';
import { workspaceQueries } from '../hooks/api/workspaces';
import { formatBytes, formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';

type Limits = Schemas['PlanLimitsView'];
type Paid = Schemas['ActivatePlanDto']['tier'];
type Interval = Schemas['ActivatePlanDto']['interval'];

const count = (n: number | null) => (n === null ? 'unlimited' : String(n));
const bytes = (n: number | null) => (n === null ? 'unlimited' : formatBytes(n));

/** One row per limit of the plan table, worded as the README's table. */
const LIMIT_ROWS: { key: keyof Limits; label: string; show: (l: Limits) => string }[] = [
  { key: 'projects', label: 'Projects', show: (l) => count(l.projects) },
  { key: 'deploymentsPerMonth', label: 'Deployments a month', show: (l) => count(l.deploymentsPerMonth) },
  { key: 'storageBytes', label: 'Storage', show: (l) => bytes(l.storageBytes) },
  { key: 'maxFileBytes', label: 'Largest file', show: (l) => formatBytes(l.maxFileBytes) },
  { key: 'maxTtl', label: 'Longest time to live', show: (l) => l.maxTtl ?? 'any, including forever' },
];

export function Billing() {
  const workspaceId = useWorkspaceId();
  const workspace = useQuery(workspaceQueries.detail(workspaceId));
  const subscription = useQuery(billingQueries.subscription(workspaceId));
  const plans = useQuery(billingQueries.plans());

  return (
    <>
      <h1>Billing</h1>
      <h2>Plan and usage</h2>
      {workspace.isPending ? <Loading what="the plan and its usage" /> : null}
      <ErrorNote error={workspace.error} />
      {workspace.data ? <Usage workspace={workspace.data} subscription={subscription.data} /> : null}
      <ErrorNote error={subscription.error} />

      <h2>Plans</h2>
      {plans.isPending ? <Loading what="the plans" /> : null}
      <ErrorNote error={plans.error} />
      {plans.data ? <PlanTable plans={plans.data.data} current={workspace.data?.plan} /> : null}

      <PaymentMethods workspaceId={workspaceId} />
      <Subscription workspaceId={workspaceId} subscription={subscription.data} />
    </>
  );
}

function Usage({ workspace, subscription }: { workspace: Schemas['WorkspaceDetailView']; subscription?: Schemas['SubscriptionView'] }) {
  const { usage } = workspace;
  return (
    <div className="panel">
      <p>
        This workspace is on the <strong>{workspace.plan}</strong> plan
        {subscription?.status === 'active' && subscription.interval ? `, billed every ${subscription.interval}` : ''}
        {subscription?.status === 'active' && subscription.currentPeriodEnd
          ? subscription.cancelAtPeriodEnd
            ? `; it ends on ${formatTime(subscription.currentPeriodEnd)} and the workspace returns to free`
            : `; it renews on ${formatTime(subscription.currentPeriodEnd)}`
          : ''}
        .
      </p>
      <UsageBar label="Projects" used={usage.projects.used} limit={usage.projects.limit} show={String} />
      <UsageBar
        label="Deployments this month"
        used={usage.deploymentsPerMonth.used}
        limit={usage.deploymentsPerMonth.limit}
        show={String}
        note={`Counts again from ${formatTime(usage.deploymentsPerMonth.resetsAt)}.`}
      />
      <UsageBar label="Storage" used={usage.storageBytes.used} limit={usage.storageBytes.limit} show={formatBytes} />
    </div>
  );
}

/** A quota as a native <meter> (announced by screen readers), with its figures in words. */
function UsageBar({ label, used, limit, show, note }: { label: string; used: number; limit: number | null; show: (n: number) => string; note?: string }) {
  const id = useId();
  const share = quotaShare(used, limit);
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
            {note ? `. ${note}` : ''}
          </span>
        </>
      )}
    </div>
  );
}

function PlanTable({ plans, current }: { plans: Schemas['PlanView'][]; current?: string }) {
  return (
    <TableWrap label="Plans">
      <table>
        <caption className="muted">What each plan allows on this installation</caption>
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
          {LIMIT_ROWS.map((row) => (
            <tr key={row.key}>
              <th scope="row">{row.label}</th>
              {plans.map((p) => (
                <td key={p.tier}>{row.show(p.limits)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
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

function Subscription({ workspaceId, subscription }: { workspaceId: string; subscription?: Schemas['SubscriptionView'] }) {
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
      <h2>Change the plan</h2>
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
