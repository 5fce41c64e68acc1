import { useQuery } from '@tanstack/react-query';
import { Plus, RefreshCw, Save, Trash2, Unlink } from 'lucide-react';
import { type FormEvent, useId, useState } from 'react';
import { useLocation } from 'react-router';

import type { EnvVar, Forge, GitSettings, GitSettingsBody, WebhookSecret } from '../api';
import { ButtonIcon, ConfirmDialog, ConfirmMutation, CopyButton, Empty, ErrorNote, Field, Loading, SelectField, TableWrap } from '../components/ui';
import { FORGE_NAMES, FORGES, inferForge, webhookSetups } from '../forges';
import { gitQueries, useDeleteEnvVar, useDisconnectGit, usePutEnvVar, useRotateWebhookSecret, useSaveGitSettings } from '../hooks/api/git';
import { formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';
import { useProject } from './project-layout';

const ENV_TARGETS = ['production', 'preview'] as const;
type EnvTarget = (typeof ENV_TARGETS)[number];

/** An optional text field as the API takes it: empty means unset. */
const optional = (value: string): string | undefined => (value.trim() === '' ? undefined : value.trim());

/** The project's Git repository: connect, change, disconnect. Loads the settings, then shows the form with them. */
export function GitRepository() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const settings = useQuery(gitQueries.settings(workspaceId, project.id));
  // Here, not in the form: a save remounts the form (see its key), the note stays.
  const [saved, setSaved] = useState(false);
  return (
    <>
      <h2 id="git">Git repository</h2>
      {settings.isPending ? <Loading what="the Git settings" /> : null}
      <ErrorNote error={settings.error} />
      {/* Keyed by the saved settings, so the form starts again from what the server now holds. */}
      {settings.isSuccess ? <GitForm key={settings.data?.updatedAt ?? 'none'} current={settings.data} saved={saved} onSaved={setSaved} /> : null}
      {/* Not keyed like the form: a secret just created stays on screen when the settings reload. */}
      {settings.data ? <Webhook current={settings.data} /> : null}
    </>
  );
}

/**
 * Where the forge sends pushes and pull requests, and the secret that signs them: created
 * or rotated here, shown once (the server keeps it sealed), with each forge's setup steps.
 */
function Webhook({ current }: { current: GitSettings }) {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const [created, setCreated] = useState<(WebhookSecret & { replaced: boolean }) | null>(null);
  const [confirming, setConfirming] = useState(false);
  const hasSecret = current.hasWebhookSecret;
  const rotate = useRotateWebhookSecret(workspaceId, project.id, {
    onSuccess: (answer) => {
      setConfirming(false);
      setCreated({ ...answer, replaced: hasSecret });
    },
  });
  const inferred = inferForge(current.repository);

  return (
    <section className="panel" aria-labelledby="webhook">
      <h3 id="webhook">Webhook</h3>
      <p>Builds each push and pull request as it happens: the production branch goes live, other branches and pull requests get a preview address.</p>
      <p>
        Webhook URL: <span className="mono break">{current.webhookUrl}</span> <CopyButton text={current.webhookUrl} label="Copy webhook URL" />
      </p>
      {created ? (
        <div className="note ok" role="status">
          <p>
            <strong>New webhook secret.</strong> Copy it to the forge’s webhook form now: it is not shown again.
            {created.replaced ? ' The old secret stopped working: deliveries signed with it are refused.' : null}
          </p>
          <p className="secret-once">
            <code aria-label="Webhook secret">{created.secret}</code> <CopyButton text={created.secret} label="Copy secret" />
          </p>
        </div>
      ) : hasSecret ? (
        <p>A webhook secret is set (never shown again). Rotate it if it may have leaked.</p>
      ) : (
        <p className="note warn">No webhook secret yet: the forge’s deliveries are refused until you create one and paste it into the forge’s webhook form.</p>
      )}
      <div className="actions">
        <button
          type="button"
          className={hasSecret ? undefined : 'primary'}
          disabled={rotate.isPending}
          onClick={() => (hasSecret ? setConfirming(true) : rotate.mutate())}
        >
          <ButtonIcon icon={RefreshCw} />
          {hasSecret ? 'Rotate secret' : 'Create secret'}
        </button>
      </div>
      {!confirming ? <ErrorNote error={rotate.error} /> : null}
      <div className="setup-hints">
        {webhookSetups(current.forge, current.repository).map((setup) => (
          <div key={setup.forge}>
            <h4>
              On {setup.name}
              {current.forge ? null : setup.forge === inferred ? ' (from the repository’s host)' : null}
            </h4>
            <ol>
              {setup.steps.map((step) => (
                <li key={step}>{step}</li>
              ))}
            </ol>
          </div>
        ))}
      </div>
      <ConfirmDialog
        open={confirming}
        title="Rotate the webhook secret?"
        confirmLabel="Rotate secret"
        danger
        busy={rotate.isPending}
        error={rotate.error}
        onConfirm={() => rotate.mutate()}
        onClose={() => {
          setConfirming(false);
          rotate.reset();
        }}
      >
        <p>The old secret stops working at once: the forge’s deliveries are refused until its webhook has the new one.</p>
      </ConfirmDialog>
    </section>
  );
}

function GitForm({ current, saved, onSaved }: { current: GitSettings | null; saved: boolean; onSaved: (saved: boolean) => void }) {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const [repository, setRepository] = useState(current?.repository ?? '');
  const [productionBranch, setProductionBranch] = useState(current?.productionBranch ?? 'main');
  const [rootDirectory, setRootDirectory] = useState(current?.rootDirectory ?? '');
  const [installCommand, setInstallCommand] = useState(current?.installCommand ?? '');
  const [buildCommand, setBuildCommand] = useState(current?.buildCommand ?? '');
  const [outputDirectory, setOutputDirectory] = useState(current?.outputDirectory ?? '');
  const [nodeVersion, setNodeVersion] = useState(current?.nodeVersion ?? '');
  const [accessToken, setAccessToken] = useState('');
  const [removeToken, setRemoveToken] = useState(false);
  const [buildForks, setBuildForks] = useState(current?.buildForkPullRequests ?? false);
  const [forge, setForge] = useState<Forge | ''>(current?.forge ?? '');
  const { hash } = useLocation();
  const [confirming, setConfirming] = useState(false);
  const forkHint = useId();

  const save = useSaveGitSettings(workspaceId, project.id, { onSuccess: () => onSaved(true) });
  const disconnect = useDisconnectGit(workspaceId, project.id, {
    onSuccess: () => {
      setConfirming(false);
      onSaved(false);
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSaved(false);
    const body: GitSettingsBody = {
      repository: repository.trim(),
      productionBranch: productionBranch.trim(),
      rootDirectory: rootDirectory.trim(),
      installCommand: optional(installCommand),
      buildCommand: optional(buildCommand),
      outputDirectory: optional(outputDirectory),
      nodeVersion: optional(nodeVersion),
    };
    // Write-only: absent keeps the stored token, a string replaces it, null removes it.
    if (removeToken) body.accessToken = null;
    else if (accessToken !== '') body.accessToken = accessToken;
    // Absent keeps them: sent only when changed, so saving other fields never touches them.
    if (buildForks !== (current?.buildForkPullRequests ?? false)) body.buildForkPullRequests = buildForks;
    if ((forge || null) !== (current?.forge ?? null)) body.forge = forge || null;
    save.mutate(body);
  };

  return (
    <>
      <form className="panel" onSubmit={submit} aria-label="Git repository">
        {saved && current ? (
          <p role="status" className="note ok">
            Repository saved.
          </p>
        ) : null}
        {current ? null : <p className="muted">Connect a repository to build each commit: its production branch goes live, any other ref is a preview.</p>}
        <Field
          label="Repository URL"
          type="url"
          required
          placeholder="https://github.com/you/site.git"
          value={repository}
          onChange={(e) => setRepository(e.target.value)}
          hint="An https:// clone URL."
          // Sent here to connect one (the onboarding page's Git way): the first step is this field.
          autoFocus={!current && hash === '#git'}
        />
        <Field label="Production branch" required value={productionBranch} onChange={(e) => setProductionBranch(e.target.value)} />
        <Field
          label="Root directory"
          value={rootDirectory}
          onChange={(e) => setRootDirectory(e.target.value)}
          hint="The site’s folder in the repository; empty for its root."
        />
        <Field label="Install command" value={installCommand} onChange={(e) => setInstallCommand(e.target.value)} hint="Empty: detected from the lock file." />
        <Field label="Build command" value={buildCommand} onChange={(e) => setBuildCommand(e.target.value)} hint="Empty: detected from the framework." />
        <Field
          label="Output directory"
          value={outputDirectory}
          onChange={(e) => setOutputDirectory(e.target.value)}
          hint="Empty: detected from the framework."
        />
        <Field label="Node version" value={nodeVersion} onChange={(e) => setNodeVersion(e.target.value)} placeholder="22" hint="Empty: the build image’s." />
        <Field
          label="Access token"
          type="password"
          autoComplete="new-password"
          value={accessToken}
          disabled={removeToken}
          placeholder={current?.hasAccessToken ? 'stored — replace' : ''}
          onChange={(e) => setAccessToken(e.target.value)}
          hint={
            current?.hasAccessToken
              ? 'A token is stored (never shown again): type a new one to replace it.'
              : 'For a private repository; stored encrypted, never shown again.'
          }
        />
        {current?.hasAccessToken ? (
          <label>
            <input type="checkbox" checked={removeToken} onChange={(e) => setRemoveToken(e.target.checked)} /> Remove the stored token
          </label>
        ) : null}
        <SelectField
          label="Forge"
          value={forge}
          onChange={(e) => setForge(e.target.value as Forge | '')}
          hint="Which forge signs the webhook and receives commit statuses and the pull request comment (with the access token)."
        >
          <option value="">
            Auto{inferForge(repository) ? ` (${FORGE_NAMES[inferForge(repository)!]}, from the host)` : ' (from the host or the first delivery)'}
          </option>
          {FORGES.map((f) => (
            <option key={f} value={f}>
              {FORGE_NAMES[f]}
            </option>
          ))}
        </SelectField>
        <div className="field">
          <label>
            <input type="checkbox" checked={buildForks} aria-describedby={forkHint} onChange={(e) => setBuildForks(e.target.checked)} /> Build pull requests
            from forks
          </label>
          <small id={forkHint} className="muted">
            Off: a pull request from another repository is ignored. On: it is built, without the project’s environment variables, so code from outside cannot
            read your secrets.
          </small>
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            <ButtonIcon icon={Save} />
            {current ? 'Save repository' : 'Connect repository'}
          </button>
          {current ? (
            <button type="button" className="danger" onClick={() => setConfirming(true)}>
              <ButtonIcon icon={Unlink} />
              Disconnect
            </button>
          ) : null}
        </div>
        <ErrorNote error={save.error} workspaceId={workspaceId} />
      </form>
      <ConfirmDialog
        open={confirming}
        title="Disconnect the repository?"
        confirmLabel="Disconnect"
        danger
        busy={disconnect.isPending}
        error={disconnect.error}
        onConfirm={() => disconnect.mutate()}
        onClose={() => {
          setConfirming(false);
          disconnect.reset();
        }}
      >
        <p>No more builds start from it, and its stored access token is deleted. What is live stays live; environment variables are kept.</p>
      </ConfirmDialog>
    </>
  );
}

/** The project's build environment variables: values are write-only, the list shows names and targets. */
export function EnvironmentVariables() {
  const project = useProject();
  const workspaceId = useWorkspaceId();
  const list = useQuery(gitQueries.envVars(workspaceId, project.id));
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [targets, setTargets] = useState<EnvTarget[]>(['production', 'preview']);
  const [saved, setSaved] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<EnvVar | null>(null);
  const put = usePutEnvVar(workspaceId, project.id, {
    onSuccess: (_data, v) => {
      setSaved(v.name);
      setName('');
      setValue('');
    },
  });
  const remove = useDeleteEnvVar(workspaceId, project.id, { onSuccess: () => setDeleting(null) });
  const toggle = (t: EnvTarget, on: boolean) => setTargets((ts) => (on ? [...ts.filter((x) => x !== t), t] : ts.filter((x) => x !== t)));
  const existing = list.data?.data.some((v) => v.name === name.trim()) ?? false;

  return (
    <>
      <h2 id="env">Environment variables</h2>
      <p className="muted">Given to builds only, masked in their logs. Values are write-only: they are never shown again.</p>
      {list.isPending ? <Loading what="environment variables" /> : null}
      <ErrorNote error={list.error} />
      {list.data && list.data.data.length === 0 ? <Empty>No environment variables.</Empty> : null}
      {list.data && list.data.data.length > 0 ? (
        <TableWrap label="Environment variables">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Targets</th>
                <th scope="col" className="hide-narrow">
                  Updated
                </th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((v) => (
                <tr key={v.name}>
                  <td className="mono">{v.name}</td>
                  <td>{v.targets.join(', ')}</td>
                  <td className="hide-narrow">{formatTime(v.updatedAt)}</td>
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        className="small"
                        onClick={() => {
                          setName(v.name);
                          setTargets([...v.targets] as EnvTarget[]);
                          setValue('');
                          setSaved(null);
                        }}
                      >
                        Replace<span className="skip"> {v.name}</span>
                      </button>
                      <button type="button" className="small" onClick={() => setDeleting(v)}>
                        <ButtonIcon icon={Trash2} />
                        Delete<span className="skip"> {v.name}</span>
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <form
        className="panel"
        aria-label="Add an environment variable"
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(null);
          put.mutate({ name: name.trim(), body: { value, targets } });
        }}
      >
        <Field
          label="Variable name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="API_URL"
          autoComplete="off"
          spellCheck={false}
        />
        <Field
          label="Value"
          type="password"
          autoComplete="new-password"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          hint={existing ? 'Replaces the stored value, which is never shown.' : 'Never shown again once saved.'}
        />
        <fieldset>
          <legend>Builds that get it</legend>
          {ENV_TARGETS.map((t) => (
            <label key={t}>
              <input type="checkbox" checked={targets.includes(t)} onChange={(e) => toggle(t, e.target.checked)} />
              {t === 'production' ? 'Production (the production branch)' : 'Preview (other branches and pull requests)'}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="primary" disabled={put.isPending || targets.length === 0}>
          <ButtonIcon icon={Plus} />
          {existing ? 'Replace variable' : 'Add variable'}
        </button>
        <ErrorNote error={put.error} />
        {saved ? (
          <p role="status" className="note ok">
            <span className="mono">{saved}</span> saved.
          </p>
        ) : null}
      </form>
      <ConfirmMutation
        target={deleting}
        mutation={remove}
        variables={(v) => v.name}
        onClose={() => setDeleting(null)}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete"
        danger
      >
        <p>Builds that start from now on no longer get it.</p>
      </ConfirmMutation>
    </>
  );
}
