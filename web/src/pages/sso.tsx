import { useQuery } from '@tanstack/react-query';
import { Save, Trash2 } from 'lucide-react';
import { type FormEvent, useState } from 'react';

import type { Schemas } from '../api';
import { ButtonIcon, CopyButton, ErrorNote, Field, Loading } from '../components/ui';
import { ssoQueries, useDeleteSso, usePutSso, useVerifySsoDomain } from '../hooks/api/sso';
import { formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';

type Sso = Schemas['SsoView'];

/** The workspace's single sign-on over OpenID Connect (issue 32, docs/security.md "Single sign-on"). */
export function SingleSignOn() {
  const workspaceId = useWorkspaceId();
  const sso = useQuery(ssoQueries.get(workspaceId));
  return (
    <>
      <h1>Single sign-on</h1>
      <p className="muted">
        People of your company sign in through your identity provider (OpenID Connect). Each email domain counts once a DNS TXT record proves it is yours.
      </p>
      {sso.isPending ? <Loading what="single sign-on" /> : null}
      <ErrorNote error={sso.error} />
      {sso.isSuccess ? (
        <>
          <SsoForm key={sso.data?.updatedAt ?? 'new'} workspaceId={workspaceId} current={sso.data} />
          {sso.data ? <Domains workspaceId={workspaceId} sso={sso.data} /> : null}
          {sso.data ? <RemoveSso workspaceId={workspaceId} /> : null}
        </>
      ) : null}
    </>
  );
}

function SsoForm({ workspaceId, current }: { workspaceId: string; current: Sso | null }) {
  const [issuer, setIssuer] = useState(current?.issuer ?? '');
  const [clientId, setClientId] = useState(current?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [domains, setDomains] = useState(current?.emailDomains.map((d) => d.domain).join(', ') ?? '');
  const [defaultRole, setDefaultRole] = useState<Sso['defaultRole']>(current?.defaultRole ?? 'viewer');
  const [enforce, setEnforce] = useState(current?.enforce ?? false);
  const put = usePutSso(workspaceId);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    put.mutate({
      issuer: issuer.trim(),
      clientId: clientId.trim(),
      clientSecret: clientSecret || undefined,
      emailDomains: domains
        .split(/[\s,]+/)
        .map((d) => d.trim())
        .filter(Boolean),
      defaultRole,
      enforce,
    });
  };
  return (
    <form className="panel" aria-label="Identity provider" onSubmit={submit}>
      <h2>Identity provider</h2>
      {current ? (
        <p>
          Redirect URI to register at the provider: <span className="mono">{current.redirectUri}</span> <CopyButton text={current.redirectUri} />
        </p>
      ) : null}
      <Field label="Issuer" type="url" required placeholder="https://login.example.com" value={issuer} onChange={(e) => setIssuer(e.target.value)} />
      <Field label="Client ID" required value={clientId} onChange={(e) => setClientId(e.target.value)} />
      <Field
        label="Client secret"
        type="password"
        autoComplete="off"
        required={!current}
        hint={current ? 'Stored encrypted and never shown; leave empty to keep it.' : 'Stored encrypted and never shown again.'}
        value={clientSecret}
        onChange={(e) => setClientSecret(e.target.value)}
      />
      <Field
        label="Email domains"
        required
        hint="Comma-separated, e.g. example.com, example.org"
        value={domains}
        onChange={(e) => setDomains(e.target.value)}
      />
      <div className="field">
        <label htmlFor="sso-default-role">Role of people SSO adds</label>
        <select id="sso-default-role" value={defaultRole} onChange={(e) => setDefaultRole(e.target.value as Sso['defaultRole'])}>
          <option value="viewer">Viewer</option>
          <option value="admin">Admin</option>
        </select>
      </div>
      <label>
        <input type="checkbox" checked={enforce} onChange={(e) => setEnforce(e.target.checked)} /> Require single sign-on for these domains (you keep a password
        sign-in)
      </label>
      <ErrorNote error={put.error} />
      {put.isSuccess ? <p role="status">Saved.</p> : null}
      <button type="submit" className="primary" disabled={put.isPending}>
        <ButtonIcon icon={Save} />
        {put.isPending ? 'Saving…' : 'Save'}
      </button>
    </form>
  );
}

function Domains({ workspaceId, sso }: { workspaceId: string; sso: Sso }) {
  const verify = useVerifySsoDomain(workspaceId);
  return (
    <section className="panel" aria-label="Email domains">
      <h2>Email domains</h2>
      <p className="muted">Publish each TXT record at your DNS provider, then verify it.</p>
      <table>
        <caption className="sr-only">Email domains and their TXT records</caption>
        <thead>
          <tr>
            <th scope="col">Domain</th>
            <th scope="col">TXT record</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {sso.emailDomains.map((d) => (
            <tr key={d.domain}>
              <td className="mono">{d.domain}</td>
              <td>
                <span className="mono">{d.record.name}</span> = <span className="mono">{d.record.value}</span> <CopyButton text={d.record.value} />
              </td>
              <td>{d.verified ? `Verified ${d.verifiedAt ? formatTime(d.verifiedAt) : ''}` : 'Not verified'}</td>
              <td>
                {d.verified ? null : (
                  <button type="button" className="small" onClick={() => verify.mutate(d.domain)} disabled={verify.isPending} aria-label={`Verify ${d.domain}`}>
                    Verify
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {verify.data && !verify.data.verified ? (
        <p role="status">
          {verify.data.domain} is not verified yet: {verify.data.reason}
        </p>
      ) : null}
      {verify.data?.verified ? <p role="status">{verify.data.domain} is verified.</p> : null}
      <ErrorNote error={verify.error} />
    </section>
  );
}

function RemoveSso({ workspaceId }: { workspaceId: string }) {
  const remove = useDeleteSso(workspaceId);
  return (
    <p>
      <button type="button" className="small" onClick={() => remove.mutate()} disabled={remove.isPending}>
        <ButtonIcon icon={Trash2} />
        Remove single sign-on
      </button>
      <ErrorNote error={remove.error} />
    </p>
  );
}
