import { useQuery } from '@tanstack/react-query';
import { Plus, Trash2 } from 'lucide-react';
import { type FormEvent, useState } from 'react';

import type { Schemas } from '../api';
import { toast } from '../components/design/toast';
import { Truncate } from '../components/truncate';
import { ButtonIcon, ConfirmMutation, CopyButton, Empty, ErrorNote, Field, FocusFormButton, Loading, Pager, SelectField, TableWrap } from '../components/ui';
import { endOfDayIso } from '../format';
import { projectQueries } from '../hooks/api/projects';
import { tokenQueries, useCreateToken, useRevokeToken } from '../hooks/api/tokens';
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
const PAGE = 50;

export function Tokens() {
  const workspaceId = useWorkspaceId();
  const [page, setPage] = useState(1);
  const tokens = useQuery(tokenQueries.list(workspaceId, page, PAGE));
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

  return (
    <>
      <h1>API tokens</h1>
      <p className="muted">
        Tokens (<span className="mono">sk_live_…</span>) let the CLI, CI and scripts act in this workspace without your password.
      </p>
      <CreateToken workspaceId={workspaceId} projects={projects.data?.data ?? []} />
      <h2>Active tokens</h2>
      {tokens.isPending ? <Loading what="tokens" /> : null}
      <ErrorNote error={tokens.error} />
      {tokens.data && tokens.data.meta.total === 0 ? (
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
      {tokens.data && tokens.data.data.length > 0 ? (
        <TableWrap label="API tokens">
          <table>
            <caption className="muted">
              {tokens.data.meta.total} token{tokens.data.meta.total === 1 ? '' : 's'}
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
                  <td>{t.expires_at ? formatTime(t.expires_at) : 'never'}</td>
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
      {tokens.data ? <Pager page={page} totalPages={tokens.data.meta.totalPages} onPage={setPage} /> : null}
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
