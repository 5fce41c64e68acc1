import { useQuery } from '@tanstack/react-query';
import { Plus, Trash2 } from 'lucide-react';
import { type FormEvent, useState } from 'react';

import type { Schemas } from '../api';
import { toast } from '../components/design/toast';
import { LIST_PAGE, ListFilter, ListRange, ListSearch, ListToolbar, NoMatch, useListParams } from '../components/list';
import { Truncate } from '../components/truncate';
import { ButtonIcon, ConfirmMutation, CopyButton, Empty, ErrorNote, Field, FocusFormButton, Loading, Pager, SelectField, TableWrap } from '../components/ui';
import { endOfDayIso } from '../format';
import { projectQueries } from '../hooks/api/projects';
import { type TokenListQuery, tokenQueries, useCreateToken, useRevokeToken } from '../hooks/api/tokens';
import { formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';

type Scope = Schemas['CreateAccessTokenDto']['scopes'][number];
type Token = Schemas['AccessTokenView'];
const SCOPES: { scope: Scope; what: string }[] = [
  { scope: 'deploy', what: 'deploy files and create projects' },
  { scope: 'read', what: 'read projects, deployments and leads' },
  { scope: 'delete', what: 'archive deployments, delete projects and leads' },
  { scope: 'admin', what: 'settings, members and tokens' },
];
type Status = NonNullable<TokenListQuery['status']>;
const STATUSES: { value: Status | ''; label: string }[] = [
  { value: '', label: 'All tokens' },
  { value: 'active', label: 'Active' },
  { value: 'expired', label: 'Expired' },
];
const STATUS_VALUES = STATUSES.flatMap((s) => (s.value === '' ? [] : [s.value]));

export function Tokens() {
  const workspaceId = useWorkspaceId();
  const list = useListParams();
  const status = list.pick('status', STATUS_VALUES);
  const query: TokenListQuery = {
    page: list.page,
    limit: LIST_PAGE,
    ...(list.search !== undefined ? { search: list.search } : {}),
    ...(status ? { status } : {}),
  };
  const tokens = useQuery(tokenQueries.list(workspaceId, query));
  // Projects to bind a token to: the first 100 (a workspace with more types the id in the CLI).
  const projects = useQuery(projectQueries.names(workspaceId));
  const projectName = (id: string | null) => (id ? (projects.data?.data.find((p) => p.id === id)?.name ?? id) : 'Whole workspace');
  const [revoking, setRevoking] = useState<Token | null>(null);
  const revoke = useRevokeToken(workspaceId, {
    onSuccess: () => {
      toast(`Token ${revoking?.name ?? ''} revoked`);
      setRevoking(null);
    },
  });
  const filtered = query.search !== undefined || query.status !== undefined;
  const meta = tokens.data?.meta;

  return (
    <>
      <h1>API tokens</h1>
      <p className="muted">
        Tokens (<span className="mono">sk_live_…</span>) let the CLI, CI and scripts act in this workspace without your password.
      </p>
      <CreateToken workspaceId={workspaceId} projects={projects.data?.data ?? []} />
      <h2>Tokens</h2>
      <ListToolbar label="API tokens">
        <ListSearch list={list} label="Search tokens" placeholder="Name or sk_live_ prefix" />
        <ListFilter list={list} param="status" label="Show" value={status} options={STATUSES} />
      </ListToolbar>
      {tokens.isPending ? <Loading what="tokens" /> : null}
      <ErrorNote error={tokens.error} />
      {meta && meta.total === 0 && !filtered ? (
        <Empty
          title="No API tokens yet"
          action={
            <FocusFormButton form="create-token" icon={Plus}>
              Create a token
            </FocusFormButton>
          }
        >
          A token lets the CLI, a CI job or a script deploy and read here in your name, with only the scopes you give it.
        </Empty>
      ) : null}
      {meta && meta.total === 0 && filtered ? <NoMatch search={query.search} noun="token" onClear={() => list.update({ q: '', status: '' })} /> : null}
      {tokens.data && tokens.data.data.length > 0 && meta ? (
        <TableWrap label="API tokens">
          <table aria-busy={tokens.isPlaceholderData}>
            <caption className="muted">
              <ListRange meta={meta} shown={tokens.data.data.length} noun={['token', 'tokens']} search={query.search} pending={tokens.isPlaceholderData} />
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col" className="hide-narrow">
                  Scopes
                </th>
                <th scope="col" className="hide-narrow">
                  Project
                </th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="skip">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.data.map((t) => (
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td>
                    <Truncate value={t.prefix} label="token prefix" />…
                  </td>
                  <td className="hide-narrow">{t.scopes.join(', ')}</td>
                  <td className="hide-narrow">{projectName(t.projectId)}</td>
                  <td>{t.lastUsedAt ? formatTime(t.lastUsedAt) : 'never'}</td>
                  <td>
                    {t.expires_at ? formatTime(t.expires_at) : 'never'}
                    {t.expires_at && Date.parse(t.expires_at) <= Date.now() ? (
                      <>
                        {' '}
                        <span className="badge expired">expired</span>
                      </>
                    ) : null}
                  </td>
                  <td>
                    <button type="button" className="small" onClick={() => setRevoking(t)} aria-label={`Revoke ${t.name}`}>
                      <ButtonIcon icon={Trash2} />
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {meta ? (
        <Pager page={meta.page} totalPages={meta.totalPages} onPage={(page) => list.update({ page: String(page) }, true)} label="Pages of tokens" />
      ) : null}
      <ConfirmMutation
        target={revoking}
        mutation={revoke}
        variables={(t) => t.id}
        onClose={() => setRevoking(null)}
        title={`Revoke ${revoking?.name ?? ''}?`}
        confirmLabel="Revoke token"
        danger
      >
        <p>
          Whatever uses <span className="mono">{revoking?.prefix}…</span> stops working on its very next request. This cannot be undone.
        </p>
      </ConfirmMutation>
    </>
  );
}

function CreateToken({ workspaceId, projects }: { workspaceId: string; projects: Schemas['ProjectView'][] }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['deploy']);
  const [projectId, setProjectId] = useState('');
  const [expires, setExpires] = useState('');
  const create = useCreateToken(workspaceId, {
    onSuccess: () => {
      toast(`Token ${name} created: copy it now, it is shown once`);
      setName('');
    },
  });
  const toggle = (scope: Scope, on: boolean) => setScopes((s) => (on ? [...s, scope] : s.filter((x) => x !== scope)));

  return (
    <>
      <form
        id="create-token"
        className="panel"
        aria-label="Create an API token"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          create.mutate({ name, scopes, projectId: projectId || null, expires_at: expires ? endOfDayIso(expires) : null });
        }}
      >
        <Field label="Token name" required maxLength={100} placeholder="CI deploys" value={name} onChange={(e) => setName(e.target.value)} />
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map(({ scope, what }) => (
            <label key={scope}>
              <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
              {scope} <span className="muted">({what})</span>
            </label>
          ))}
        </fieldset>
        <div className="row">
          <SelectField label="Project" hint="A bound token acts on that project only." value={projectId} onChange={(e) => setProjectId(e.target.value)}>
            <option value="">Whole workspace</option>
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </SelectField>
          <Field label="Expires on" type="date" hint="Empty: never expires." value={expires} onChange={(e) => setExpires(e.target.value)} />
        </div>
        <button type="submit" className="primary" disabled={create.isPending}>
          <ButtonIcon icon={Plus} />
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
        <ErrorNote error={create.error} />
      </form>
      {create.data ? <NewSecret token={create.data} onDone={() => create.reset()} /> : null}
    </>
  );
}

/** The secret, this once: the API never shows it again. */
function NewSecret({ token, onDone }: { token: Schemas['CreatedAccessTokenView']; onDone: () => void }) {
  return (
    <div className="panel secret" role="status">
      <p>
        <strong>{token.name}</strong> is created. Copy its secret now: it is shown only this once.
      </p>
      <p className="secret-value">
        <code>{token.token}</code> <CopyButton text={token.token} label="Copy the token" />
      </p>
      <button type="button" onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}
