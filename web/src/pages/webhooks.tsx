import { useQuery } from '@tanstack/react-query';
import { Plus, RefreshCw } from 'lucide-react';
import { type FormEvent, useState } from 'react';

import type { Schemas } from '../api';
import { toast } from '../components/design/toast';
import { ButtonIcon, ConfirmMutation, CopyButton, Empty, ErrorNote, Field, FocusFormButton, Loading, Pager, TableWrap } from '../components/ui';
import { useCreateWebhook, useDeleteWebhook, useRedeliver, useTestWebhook, useUpdateWebhook, webhookQueries } from '../hooks/api/webhooks';
import { formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';

type Webhook = Schemas['WebhookView'];
type EventChoice = Schemas['CreateWebhookDto']['events'][number];
const EVENTS: EventChoice[] = [
  'deployment.created',
  'deployment.promoted',
  'deployment.archived',
  'build.started',
  'build.succeeded',
  'build.failed',
  'lead.captured',
  'form.submitted',
  'domain.verified',
  'domain.failed',
  'usage.threshold',
];
const PAGE = 20;

/** The workspace's outgoing webhooks (issue 30, docs/webhooks.md): endpoints, their deliveries, test and redeliver. */
export function Webhooks() {
  const workspaceId = useWorkspaceId();
  const [page, setPage] = useState(1);
  const hooks = useQuery(webhookQueries.list(workspaceId, page, PAGE));
  const [open, setOpen] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const remove = useDeleteWebhook(workspaceId, {
    onSuccess: () => {
      toast('Webhook deleted');
      setDeleting(null);
    },
  });

  return (
    <>
      <h1>Webhooks</h1>
      <p className="muted">
        Endpoints that receive this workspace’s events, signed per Standard Webhooks (verify them with the <span className="mono">standardwebhooks</span>{' '}
        package).
      </p>
      <CreateWebhook workspaceId={workspaceId} />
      <h2>Endpoints</h2>
      {hooks.isPending ? <Loading what="webhooks" /> : null}
      <ErrorNote error={hooks.error} />
      {hooks.data && hooks.data.meta.total === 0 ? (
        <Empty
          title="No webhooks yet"
          action={
            <FocusFormButton form="add-webhook" icon={Plus}>
              Add an endpoint
            </FocusFormButton>
          }
        >
          A webhook sends a signed request to your endpoint when something happens here: a deployment, a build, a lead, a form submission.
        </Empty>
      ) : null}
      {hooks.data?.data.map((w) => (
        <section key={w.id} className="panel" aria-label={`Webhook ${w.url}`}>
          <p>
            <span className="mono">{w.url}</span> {w.enabled ? <span className="muted">enabled</span> : <strong>turned off</strong>}
          </p>
          {w.description ? <p>{w.description}</p> : null}
          <p className="muted">
            {w.events.join(', ')} · {w.format}
            {w.includePersonalData ? ' · with personal data' : ''}
          </p>
          {w.disabledReason ? <p>Turned off: {w.disabledReason}</p> : null}
          <EndpointActions workspaceId={workspaceId} webhook={w} />
          <button type="button" className="small" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
            {open === w.id ? 'Hide deliveries' : 'Show deliveries'}
          </button>{' '}
          <button type="button" className="small" onClick={() => setDeleting(w)} aria-label={`Delete ${w.url}`}>
            Delete
          </button>
          {open === w.id ? <Deliveries workspaceId={workspaceId} webhook={w} /> : null}
        </section>
      ))}
      {hooks.data ? <Pager page={page} totalPages={hooks.data.meta.totalPages} onPage={setPage} /> : null}
      <ConfirmMutation
        target={deleting}
        mutation={remove}
        variables={(w) => w.id}
        onClose={() => setDeleting(null)}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        danger
      >
        <p>
          <span className="mono">{deleting?.url}</span> receives nothing more, and its delivery records go with it.
        </p>
      </ConfirmMutation>
    </>
  );
}

function EndpointActions({ workspaceId, webhook }: { workspaceId: string; webhook: Webhook }) {
  const test = useTestWebhook(workspaceId);
  const update = useUpdateWebhook(workspaceId);
  return (
    <p>
      <button type="button" className="small" onClick={() => test.mutate(webhook.id)} disabled={test.isPending}>
        Send a test event
      </button>{' '}
      <button
        type="button"
        className="small"
        onClick={() => update.mutate({ id: webhook.id, body: { enabled: !webhook.enabled } })}
        disabled={update.isPending}
      >
        {webhook.enabled ? 'Turn off' : 'Turn on'}
      </button>
      {test.isSuccess ? <span role="status"> Test event queued.</span> : null}
      <ErrorNote error={test.error ?? update.error} />
    </p>
  );
}

function CreateWebhook({ workspaceId }: { workspaceId: string }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<EventChoice[]>(['*']);
  const [personal, setPersonal] = useState(false);
  const create = useCreateWebhook(workspaceId, {
    onSuccess: () => {
      toast('Webhook created');
      setUrl('');
      setDescription('');
    },
  });
  const toggle = (event: EventChoice, on: boolean) => setEvents((e) => (on ? [...e.filter((x) => x !== '*'), event] : e.filter((x) => x !== event)));
  return (
    <>
      <form
        id="add-webhook"
        className="panel"
        aria-label="Add a webhook"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          create.mutate({ url, events, description: description || undefined, includePersonalData: personal });
        }}
      >
        <Field
          label="Endpoint URL"
          type="url"
          required
          placeholder="https://hooks.example.com/statichost"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
        <Field label="Description" maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} />
        <fieldset>
          <legend>Events</legend>
          <label>
            <input type="checkbox" checked={events.includes('*')} onChange={(e) => setEvents(e.target.checked ? ['*'] : [])} />
            All events
          </label>
          {EVENTS.map((event) => (
            <label key={event}>
              <input type="checkbox" checked={events.includes(event)} onChange={(e) => toggle(event, e.target.checked)} />
              <span className="mono">{event}</span>
            </label>
          ))}
        </fieldset>
        <label>
          <input type="checkbox" checked={personal} onChange={(e) => setPersonal(e.target.checked)} />
          Include personal data (a lead’s email, a form’s fields)
        </label>
        <button type="submit" className="primary" disabled={create.isPending}>
          <ButtonIcon icon={Plus} />
          {create.isPending ? 'Adding…' : 'Add webhook'}
        </button>
        <ErrorNote error={create.error} />
      </form>
      {create.data ? (
        <div className="panel secret" role="status">
          <p>Copy the signing secret now: it is shown only this once.</p>
          <p className="secret-value">
            <code>{create.data.secret}</code> <CopyButton text={create.data.secret} label="Copy the secret" />
          </p>
          <button type="button" onClick={() => create.reset()}>
            I have copied it
          </button>
        </div>
      ) : null}
    </>
  );
}

function Deliveries({ workspaceId, webhook }: { workspaceId: string; webhook: Webhook }) {
  const [page, setPage] = useState(1);
  const deliveries = useQuery(webhookQueries.deliveries(workspaceId, webhook.id, page, PAGE));
  const redeliver = useRedeliver(workspaceId);
  return (
    <>
      {deliveries.isPending ? <Loading what="deliveries" /> : null}
      <ErrorNote error={deliveries.error ?? redeliver.error} />
      {deliveries.data && deliveries.data.meta.total === 0 ? (
        <Empty title="No deliveries yet">Each request sent to this endpoint shows here, with its answer, once an event happens (or a test is sent).</Empty>
      ) : null}
      {deliveries.data && deliveries.data.data.length > 0 ? (
        <TableWrap label={`Deliveries to ${webhook.url}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Answer</th>
                <th scope="col" className="hide-narrow">
                  Attempts
                </th>
                <th scope="col" className="hide-narrow">
                  When
                </th>
                <th scope="col">
                  <span className="skip">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.data.map((d) => (
                <tr key={d.id}>
                  <td className="mono">{d.eventType}</td>
                  <td>{d.status}</td>
                  <td>{d.responseStatus ?? d.error ?? '—'}</td>
                  <td className="hide-narrow">{d.attempts}</td>
                  <td className="hide-narrow">{formatTime(d.lastAttemptAt ?? d.createdAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="small"
                      onClick={() => redeliver.mutate({ id: webhook.id, deliveryId: d.id })}
                      aria-label={`Redeliver ${d.eventType} ${d.id}`}
                    >
                      <ButtonIcon icon={RefreshCw} />
                      Redeliver
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {deliveries.data ? <Pager page={page} totalPages={deliveries.data.meta.totalPages} onPage={setPage} /> : null}
    </>
  );
}
