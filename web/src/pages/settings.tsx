import { RefreshCw, Save } from 'lucide-react';
import { type FormEvent, useState } from 'react';

import type { Schemas } from '../api';
import { toast } from '../components/design/toast';
import { ButtonIcon, CopyButton, ErrorNote, Field, TableWrap } from '../components/ui';
import { useUpdateProject, useVerifyDomain } from '../hooks/api/projects';
import { formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';
import { EnvironmentVariables, GitRepository } from './git-settings';
import { useProject } from './project-layout';

type Gate = 'none' | 'password' | 'email';

export function ProjectSettings() {
  const project = useProject();
  const workspaceId = useWorkspaceId();

  const [gate, setGate] = useState<Gate>(project.gate_type as Gate);
  const [password, setPassword] = useState('');
  const [ttl, setTtl] = useState(project.default_ttl);
  const [domain, setDomain] = useState(project.custom_domain ?? '');
  const [saved, setSaved] = useState<string | null>(null);

  const save = useUpdateProject(workspaceId, project.id, {
    onSuccess: (_p, body) => {
      toast('Settings saved');
      setSaved(Object.keys(body).includes('custom_domain') ? 'domain' : Object.keys(body).includes('default_ttl') ? 'ttl' : 'gate');
      setPassword('');
    },
  });
  const verify = useVerifyDomain(workspaceId, project.id);
  const submit = (body: Schemas['UpdateProjectDto']) => (e: FormEvent) => {
    e.preventDefault();
    setSaved(null);
    save.mutate(body);
  };
  const errorFor = (what: string) => (save.variables && Object.keys(save.variables).includes(what) ? save.error : null);

  return (
    <>
      <h2>Access gate</h2>
      <form className="panel" onSubmit={submit(gate === 'password' ? { gate_type: gate, password } : { gate_type: gate })}>
        <fieldset>
          <legend>Who can see the site</legend>
          {(['none', 'password', 'email'] as const).map((g) => (
            <label key={g}>
              <input type="radio" name="gate" value={g} checked={gate === g} onChange={() => setGate(g)} />
              {g === 'none' ? 'Everyone (public)' : g === 'password' ? 'Visitors with the password' : 'Visitors who leave their email'}
            </label>
          ))}
        </fieldset>
        {gate === 'password' ? (
          <Field
            label="Password"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            hint="Required when turning the password gate on."
          />
        ) : null}
        <button type="submit" className="primary" disabled={save.isPending}>
          <ButtonIcon icon={Save} />
          Save gate
        </button>
        <ErrorNote error={errorFor('gate_type')} workspaceId={workspaceId} />
        {saved === 'gate' ? (
          <p role="status" className="note ok">
            Gate saved.
          </p>
        ) : null}
      </form>

      <h2>Default time to live</h2>
      <form className="panel" onSubmit={submit({ default_ttl: ttl })}>
        <Field label="Default TTL of new deployments" value={ttl} onChange={(e) => setTtl(e.target.value)} hint="e.g. 7d, 30d, 12h, forever" />
        <button type="submit" className="primary" disabled={save.isPending}>
          <ButtonIcon icon={Save} />
          Save TTL
        </button>
        <ErrorNote error={errorFor('default_ttl')} workspaceId={workspaceId} />
        {saved === 'ttl' ? (
          <p role="status" className="note ok">
            Default TTL saved.
          </p>
        ) : null}
      </form>

      <h2>Custom domain</h2>
      <form className="panel" onSubmit={submit({ custom_domain: domain.trim() === '' ? null : domain.trim() })}>
        <Field label="Domain" placeholder="www.example.com" value={domain} onChange={(e) => setDomain(e.target.value)} hint="Empty to remove it." />
        <button type="submit" className="primary" disabled={save.isPending}>
          <ButtonIcon icon={Save} />
          Save domain
        </button>
        <ErrorNote error={errorFor('custom_domain')} workspaceId={workspaceId} />
        {saved === 'domain' ? (
          <p role="status" className="note ok">
            Domain saved.
          </p>
        ) : null}
        {project.custom_domain ? (
          <>
            <p>
              <span className="mono">{project.custom_domain}</span> is <span className={`badge ${project.domainStatus ?? ''}`}>{project.domainStatus}</span>
              {project.domainVerifiedAt ? ` since ${formatTime(project.domainVerifiedAt)}` : ''}.
            </p>
            <DnsRecords records={project.domainRecords ?? []} />
            <button type="button" disabled={verify.isPending} onClick={() => verify.mutate()}>
              <ButtonIcon icon={RefreshCw} />
              {verify.isPending ? 'Checking DNS…' : 'Verify DNS records'}
            </button>
            <ErrorNote error={verify.error} />
            {verify.data ? <VerifyResult result={verify.data} /> : null}
          </>
        ) : null}
      </form>

      <GitRepository />
      <EnvironmentVariables />
    </>
  );
}

function DnsRecords({ records }: { records: Schemas['DnsRecordView'][] }) {
  if (records.length === 0) return null;
  return (
    <TableWrap label="DNS records">
      <table>
        <caption className="muted">Create these records at your DNS provider</caption>
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {records.map((r) => (
            <tr key={`${r.type} ${r.name}`}>
              <td>{r.type}</td>
              <td>
                <span className="mono">{r.name}</span> <CopyButton text={r.name} label="Copy name" />
              </td>
              <td>
                <span className="mono">{r.value}</span> <CopyButton text={r.value} label="Copy value" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function VerifyResult({ result }: { result: Schemas['VerifyDomainView'] }) {
  return (
    <div role="status" className="panel">
      <p>
        Result: <span className={`badge ${result.domainStatus}`}>{result.domainStatus}</span>
      </p>
      <ul>
        {result.records.map((r) => (
          <li key={`${r.type} ${r.name}`}>
            {r.type} <span className="mono">{r.name}</span>: {r.ok ? 'found' : 'not found'}
            {r.found && r.found.length > 0 ? ` (seen: ${r.found.join(', ')})` : ''}
            {r.error ? ` — DNS error: ${r.error}` : r.ok ? '' : ` — expected ${r.expected}`}
          </li>
        ))}
      </ul>
    </div>
  );
}
