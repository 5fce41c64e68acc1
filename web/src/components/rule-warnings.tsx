import type { Deployment } from '../api';

/**
 * The lines of `_redirects`/`_headers` that deployed but will never apply (issue 34), as
 * the deployment record gives them; nothing when there are none.
 */
export function RuleWarnings({ warnings }: { warnings: Deployment['warnings'] }) {
  if (warnings.length === 0) return null;
  return (
    <div className="note warn" role="status">
      <p>{warnings.length === 1 ? 'A rule deployed but will never apply:' : `${warnings.length} rules deployed but will never apply:`}</p>
      <ul>
        {warnings.map((w) => (
          <li key={`${w.file}:${w.line}:${w.message}`}>
            <span className="mono">
              {w.file}
              {w.line > 0 ? ` line ${w.line}` : ''}
            </span>
            : {w.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
